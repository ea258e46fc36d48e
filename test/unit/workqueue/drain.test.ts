/**
 * runWorkers' drain deadline (issue 35) against the local API server with an endpoint that never
 * answers (a PATCH delayed on the server's own clock, which the test never advances): after the stop
 * signal, the reconcile in flight keeps its request until the deadline (on the workers' injected
 * clock); then its signal aborts the request, and the run resolves naming the key in flight and the
 * key never started. Without a deadline nothing would return until the server answered.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { connect, type Connection } from '../../../src/connect.js';
import { WorkQueue } from '../../../src/workqueue/queue.js';
import { runWorkers, DrainTimeoutError, type WorkersResult } from '../../../src/workqueue/workers.js';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';

const settle = () => new Promise((r) => setImmediate(r));
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

let env: ServerEnv;
let k: Connection;
const serverClock = new FakeClock();

before(async () => {
  env = await startServerEnv({ seed: 'demo', clock: serverClock }, 'kdyn-drain-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
});
after(async () => {
  k?.close();
  await env?.stop();
});

test('a reconcile hanging on the server: the run returns at the drain deadline, its request aborted, naming what was left', async () => {
  env.server.faults.add({ method: 'PATCH', path: /\/configmaps\/hang-/, delayMs: 3_600_000 });
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ clock });
  const stop = new AbortController();
  const failures: unknown[] = [];
  const handle = k.client.resource(CONFIGMAPS, { namespaced: true }).namespace('demo');
  let finished: WorkersResult<string> | undefined;
  const run = runWorkers(
    queue,
    async (key, { signal }) => {
      await handle.patch(key, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key }, data: { k: 'v' } }, 'apply', { fieldManager: 'drain-test', signal });
    },
    { workers: 1, signal: stop.signal, drainTimeoutMs: 5_000, clock, onError: (_key, e) => failures.push(e) },
  ).then((r) => (finished = r));
  queue.add('hang-1');
  queue.add('hang-2');
  // The PATCH of hang-1 is at the server, which holds it (the server's clock never moves).
  while (serverClock.pending === 0) await settle();

  stop.abort();
  clock.advance(4_999);
  await settle();
  assert.equal(finished, undefined, 'returned before the drain deadline');
  clock.advance(1);
  assert.deepEqual(await run, { inFlight: ['hang-1'], notStarted: ['hang-2'] });
  // The request itself was ended by the reconcile's signal (not left hanging on its socket).
  while (failures.length === 0) await settle();
  assert.ok(failures[0] instanceof DrainTimeoutError, String(failures[0]));
  assert.equal(env.server.requestLog.filter((e) => e.method === 'PATCH' && e.path.endsWith('/hang-2')).length, 0, 'hang-2 was never started');
});

test('a drain that finishes in time: both lists empty, the reconciles\' signal never aborted', async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ clock });
  const stop = new AbortController();
  const signals: AbortSignal[] = [];
  const run = runWorkers(queue, (_key, { signal }) => void signals.push(signal), { signal: stop.signal, drainTimeoutMs: 5_000, clock });
  queue.add('a');
  await settle();
  stop.abort();
  assert.deepEqual(await run, { inFlight: [], notStarted: [] });
  assert.equal(signals.length, 1);
  assert.equal(signals[0]!.aborted, false);
  assert.equal(clock.pending, 0, 'the deadline\'s timer is cancelled');
});

test('takeQueued: the items waiting, in order; not the one being processed, which is not run again after the deadline', async () => {
  const clock = new FakeClock();
  const queue = new WorkQueue<string>({ clock });
  const stop = new AbortController();
  const runs: string[] = [];
  let release!: () => void;
  const run = runWorkers(queue, async (key, { signal }) => {
    runs.push(key);
    if (key === 'a') await new Promise<void>((r) => (release = r));
    assert.equal(signal.aborted, key === 'a');
  }, { signal: stop.signal, drainTimeoutMs: 1_000, clock });
  queue.add('a');
  await settle();
  queue.add('a'); // again while in flight: held dirty until its worker is done
  queue.add('b');
  queue.add('c');
  stop.abort();
  clock.advance(1_000);
  assert.deepEqual(await run, { inFlight: ['a'], notStarted: ['b', 'c'] });
  release();
  await settle();
  await settle();
  assert.deepEqual(runs, ['a'], 'nothing runs after the deadline');
});
