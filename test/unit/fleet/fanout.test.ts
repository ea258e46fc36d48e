// The fan-out over contexts (src/fleet/fanout.ts): bounded concurrency, results by context in the
// given order, errors that stay with their context, a per-context time limit on an injected clock,
// a stop that leaves the rest unstarted, and the ordered hand-over for streaming output.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { ContextNotStartedError, ContextTimeoutError, fanOut } from '../../../src/fleet/fanout.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('fanOut', () => {
  test('results in the given order, each context\'s error with it, connections opened and closed once each', async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const results = await fanOut<string, number>(['a', 'bad', 'c'], async (conn, context) => {
      if (context === 'bad') throw new Error('down');
      return conn.length;
    }, { open: (c) => (opened.push(c), `conn-${c}`), close: (_, c) => void closed.push(c) });
    assert.deepEqual(results.map((r) => (r.ok ? [r.context, r.value] : [r.context, (r.error as Error).message])), [['a', 6], ['bad', 'down'], ['c', 6]]);
    assert.deepEqual(opened.sort(), ['a', 'bad', 'c']);
    assert.deepEqual(closed.sort(), ['a', 'bad', 'c']);
  });

  test('at most `concurrency` at once; onResult in order as soon as the earlier ones are in', async () => {
    let running = 0;
    let most = 0;
    const release = new Map<string, () => void>();
    const delivered: string[] = [];
    const run = fanOut<string, string>(['a', 'b', 'c', 'd'], async (_, context) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => release.set(context, r));
      running--;
      return context;
    }, { open: (c) => c, concurrency: 2, onResult: (r) => delivered.push(r.context) });
    await tick();
    assert.deepEqual([...release.keys()], ['a', 'b']);
    release.get('b')!();
    await tick();
    await tick();
    assert.deepEqual(delivered, [], 'b waits for a');
    release.get('a')!();
    for (let i = 0; i < 5; i++) await tick();
    assert.deepEqual(delivered, ['a', 'b']);
    release.get('c')!();
    release.get('d')!();
    await run;
    assert.deepEqual(delivered, ['a', 'b', 'c', 'd']);
    assert.equal(most, 2);
  });

  test('timeoutMs: a context that hangs fails alone with ContextTimeoutError, and its signal is aborted', async () => {
    const clock = new FakeClock();
    let aborted = false;
    const run = fanOut<string, string>(['slow', 'fast'], async (_, context, signal) => {
      if (context === 'fast') return 'ok';
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise<string>(() => undefined);
    }, { open: (c) => c, timeoutMs: 5000, clock });
    for (let i = 0; i < 10; i++) await tick();
    assert.equal(clock.pending, 1, 'fast is done and its timer gone; slow waits');
    clock.advance(5000);
    const [slow, fast] = await run;
    assert.ok(!slow!.ok && slow!.error instanceof ContextTimeoutError && slow!.error.message === 'no answer within 5s');
    assert.ok(fast!.ok && fast!.value === 'ok');
    assert.ok(aborted);
  });

  test('a stop: contexts not started yet are not started', async () => {
    const ac = new AbortController();
    const started: string[] = [];
    const results = await fanOut<string, void>(['a', 'b', 'c'], async (_, context) => {
      started.push(context);
      ac.abort();
    }, { open: (c) => c, concurrency: 1, signal: ac.signal });
    assert.deepEqual(started, ['a']);
    assert.ok(results[1]!.ok === false && results[1]!.error instanceof ContextNotStartedError);
    assert.ok(results[2]!.ok === false);
  });
});
