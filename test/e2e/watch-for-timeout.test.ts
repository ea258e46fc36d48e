/**
 * `kdyn watch --for`'s default timeout is kubectl wait's: 30 s when --timeout is not given, a week when
 * it is negative; a plain watch (no --for) runs until stopped. The command runs in this process against
 * the local API server (real sockets) with a fake clock, so the 30 s and the week pass at once.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from '../../src/cli/commands/watch.js';
import { parseArgv } from '../../src/cli/parse.js';
import { createContext } from '../../src/cli/context.js';
import { FakeClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { memoryIO } from '../support/io.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { clientFor } from './watch-helpers.js';

let env: ServerEnv;

before(async () => {
  env = await startServerEnv({}, 'kdyn-e2e-watch-for-timeout-');
  const cms = clientFor(env.server).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('default');
  await cms.create({ metadata: { name: 'pending' }, data: { phase: 'Pending' } });
});
after(async () => {
  await env.stop();
});

const WEEK_MS = 7 * 24 * 3600_000;

/** Starts `kdyn watch ARGS` in process; resolves once its watch request reached the server. */
async function startWatch(argv: string[]) {
  const args = parseArgv(['watch', ...argv]);
  const io = memoryIO({ KUBECONFIG: env.kubeconfig, HOME: join(env.dir, 'home') }, env.dir);
  let signal: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
  io.onSignal = (listener) => {
    signal = listener;
    return () => (signal = undefined);
  };
  const clock = new FakeClock();
  const ctx = createContext(args, io, clock, silentLogger);
  let result: { code: number } | { error: unknown } | undefined;
  env.server.clearLog();
  const done = run(args, ctx, io).then(
    (code) => (result = { code }),
    (error: unknown) => (result = { error }),
  );
  for (const deadline = Date.now() + 15_000; !env.server.requestLog.some((r) => /(^|&)watch=/.test(r.query)); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`no watch request; stderr: ${io.err()}`);
  }
  return {
    io,
    /** Moves the fake clock on, then lets the command react. */
    advance: async (ms: number) => {
      clock.advance(ms);
      await new Promise((r) => setTimeout(r, 50));
    },
    result: () => result,
    interrupt: () => signal?.('SIGINT'),
    finished: async () => {
      await done;
      ctx.close();
      return result;
    },
  };
}

const FOR_READY = ['configmap', 'pending', '-n', 'default', '--for', 'jsonpath={.data.phase}=Ready'];

test('--for without --timeout gives up after 30 s, as kubectl wait: exit 1, the object named', async () => {
  const w = await startWatch(FOR_READY);
  await w.advance(29_999);
  assert.equal(w.result(), undefined, 'still waiting before 30 s');
  await w.advance(1);
  assert.deepEqual(await w.finished(), { code: 1 });
  assert.equal(w.io.err(), 'error: timed out waiting for the condition on configmaps/pending\n');
  assert.equal(w.io.out(), 'configmap/pending: {.data.phase}=Pending\n');
});

test('--for with a negative --timeout waits a week', async () => {
  const w = await startWatch([...FOR_READY, '--timeout=-1s']);
  await w.advance(31_000);
  assert.equal(w.result(), undefined, 'not the 30 s default');
  await w.advance(WEEK_MS - 31_000);
  assert.deepEqual(await w.finished(), { code: 1 });
  assert.match(w.io.err(), /timed out waiting for the condition on configmaps\/pending\n$/);
});

test('a plain watch (no --for) runs until stopped, however long', async () => {
  const w = await startWatch(['configmap', 'pending', '-n', 'default', '-o', 'name']);
  await w.advance(WEEK_MS);
  assert.equal(w.result(), undefined, 'still watching after a week');
  w.interrupt();
  assert.deepEqual(await w.finished(), { code: 130 });
  assert.equal(w.io.out(), 'configmap/pending\n');
});
