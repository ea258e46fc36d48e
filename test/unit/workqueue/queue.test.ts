/**
 * The work queue (client-go's util/workqueue semantics): dedup while queued, never one item in two
 * workers at once, delays and rate limits on an injected clock (no sleeps), shutdown and drain, and
 * the worker loop with its retries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { WorkQueue } from '../../../src/workqueue/queue.js';
import { exponentialRateLimiter, maxOfRateLimiter, tokenBucketRateLimiter } from '../../../src/workqueue/rate-limiters.js';
import { runWorkers } from '../../../src/workqueue/workers.js';

/** Lets promise callbacks (a resolved get(), a fired sleep) run. */
const settle = () => new Promise((r) => setImmediate(r));

test('an item added twice before it is processed is handed out once; order is first-added', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  q.done('a');
  q.done('b');
  assert.equal(q.length, 0);
});

test('an item added while a worker holds it waits for done(), so no two workers hold it at once', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  const first = await q.get();
  q.add('a'); // changed again while being processed
  q.add('a');
  assert.equal(q.length, 0, 'held back while processing');
  let second: string | undefined;
  void q.get().then((item) => (second = item));
  await settle();
  assert.equal(second, undefined, 'a second worker does not get it meanwhile');
  q.done(first!);
  await settle();
  assert.equal(second, 'a', 'queued again, once, after done()');
  q.done('a');
  assert.equal(q.length, 0);
});

test('items by key: the latest item under a key is handed out', async () => {
  const q = new WorkQueue<{ name: string; v: number }>({ key: (i) => i.name });
  q.add({ name: 'x', v: 1 });
  q.add({ name: 'x', v: 2 });
  assert.equal(q.length, 1);
  assert.deepEqual(await q.get(), { name: 'x', v: 2 });
});

test('addAfter waits on the clock; a pending earlier time wins over a later one, a sooner one replaces it', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 5000); // later: ignored
  q.addAfter('b', 3000);
  q.addAfter('b', 500); // sooner: replaces
  q.addAfter('now', 0);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'now');
  clock.advance(500);
  await settle();
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'b');
  clock.advance(500);
  await settle();
  assert.equal(await q.get(), 'a');
  clock.advance(10_000);
  await settle();
  assert.equal(q.length, 0, 'each delayed item came once');
});

test('exponential per-item rate limiter: doubling from the base, capped, forget starts over', () => {
  const r = exponentialRateLimiter({ baseMs: 5, maxMs: 40 });
  assert.deepEqual([r.when('a'), r.when('a'), r.when('a'), r.when('a'), r.when('a')], [5, 10, 20, 40, 40]);
  assert.equal(r.when('b'), 5, 'per item');
  assert.equal(r.numRequeues('a'), 5);
  r.forget('a');
  assert.equal(r.numRequeues('a'), 0);
  assert.equal(r.when('a'), 5);
});

test('token bucket: a burst at once, then one token per 1/qps; refills while idle', () => {
  const clock = new FakeClock();
  const r = tokenBucketRateLimiter({ qps: 10, burst: 3, clock });
  assert.deepEqual([r.when('x'), r.when('y'), r.when('z')], [0, 0, 0]);
  assert.deepEqual([r.when('x'), r.when('x')], [100, 200], 'overall, whatever the item');
  clock.advance(1000); // 10 tokens refill, capped at the burst (from -2)
  assert.deepEqual([r.when('x'), r.when('x'), r.when('x'), r.when('x')], [0, 0, 0, 100]);
  const both = maxOfRateLimiter(exponentialRateLimiter({ baseMs: 1000 }), tokenBucketRateLimiter({ qps: 10, burst: 1, clock }));
  assert.deepEqual([both.when('a'), both.when('b')], [1000, 1000]);
});

test('addRateLimited waits as the rate limiter says; forget resets it', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ clock, rateLimiter: exponentialRateLimiter({ baseMs: 100 }) });
  q.addRateLimited('a');
  assert.equal(q.length, 0);
  clock.advance(99);
  await settle();
  assert.equal(q.length, 0);
  clock.advance(1);
  await settle();
  assert.equal(q.length, 1);
  q.done((await q.get())!);
  q.addRateLimited('a');
  assert.equal(q.numRequeues('a'), 2);
  clock.advance(200);
  await settle();
  assert.equal(await q.get(), 'a');
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
});

test('shutdown: new and delayed items are dropped, queued ones still handed out, then undefined; drain waits for done()', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ clock });
  q.add('a');
  q.add('b');
  q.addAfter('later', 10);
  const held = await q.get();
  let drained = false;
  const drain = q.shutdown({ drain: true }).then(() => (drained = true));
  q.add('c');
  clock.advance(100);
  await settle();
  assert.equal(q.length, 1, 'only b: c refused, the delayed item dropped');
  assert.equal(await q.get(), 'b');
  q.done('b');
  await settle();
  assert.equal(drained, false, 'a is still being processed');
  let last: string | undefined = 'pending';
  void q.get().then((i) => (last = i));
  q.done(held!);
  await drain;
  assert.equal(drained, true);
  await settle();
  assert.equal(last, undefined, 'get() after shutdown with nothing left');
});

test('runWorkers: concurrent workers never share an item; failures retried with backoff, success forgets; abort drains', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ clock, rateLimiter: exponentialRateLimiter({ baseMs: 10 }) });
  const active = new Set<string>();
  const calls: string[] = [];
  const errors: string[] = [];
  let failB = 2;
  const gates = new Map<string, () => void>();
  const ac = new AbortController();
  const run = runWorkers(
    q,
    async (item) => {
      assert.ok(!active.has(item), `${item} processed by two workers at once`);
      active.add(item);
      calls.push(item);
      await new Promise<void>((r) => gates.set(item, r));
      active.delete(item);
      if (item === 'b' && failB-- > 0) throw new Error('not yet');
      if (item === 'c') return { requeueAfterMs: 1000 };
    },
    { workers: 3, signal: ac.signal, onError: (item, e, info) => errors.push(`${item} ${(e as Error).message} ${info.retries}`) },
  );
  q.add('a');
  q.add('b');
  q.add('c');
  await settle();
  q.add('a'); // while a is processed
  const release = async (item: string) => {
    await settle();
    gates.get(item)!();
    await settle();
  };
  await release('a');
  await release('a'); // the second round of a
  await release('b'); // fails: retried after 10 ms
  clock.advance(10);
  await release('b'); // fails: retried after 20 ms
  clock.advance(20);
  await release('b'); // succeeds
  await release('c'); // asks to come back after 1 s
  assert.deepEqual(calls, ['a', 'b', 'c', 'a', 'b', 'b']);
  assert.deepEqual(errors, ['b not yet 0', 'b not yet 1']);
  assert.equal(q.numRequeues('b'), 0, 'forgotten after the success');
  q.add('d');
  ac.abort(); // drains: d is still processed, the delayed c is dropped
  await release('d');
  await run;
  assert.deepEqual(calls.slice(6), ['d']);
});

test('runWorkers: maxRetries drops an item that keeps failing', async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ clock, rateLimiter: exponentialRateLimiter({ baseMs: 1 }) });
  const seen: string[] = [];
  const ac = new AbortController();
  const run = runWorkers(q, () => {
    throw new Error('broken');
  }, { maxRetries: 2, signal: ac.signal, onError: (item, _e, info) => seen.push(`${item} ${info.retries} ${info.dropped}`) });
  q.add('x');
  for (let i = 0; i < 4; i++) {
    await settle();
    clock.advance(10);
  }
  await settle();
  ac.abort();
  await run;
  assert.deepEqual(seen, ['x 0 false', 'x 1 false', 'x 2 true']);
  assert.equal(q.numRequeues('x'), 0);
});
