/**
 * The poll-based waiter against the local API server, with one FakeClock for both the server (its
 * CRD establish delay) and the waiter (its back-off sleeps): no real waiting, exact request counts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { simpleCrd } from '../../support/apiserver/crds.js';
import { restConfigFor } from '../transport/helpers.js';
import { createTransport } from '../../../src/transport/http.js';
import { DynamicClient } from '../../../src/dynamic/client.js';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { waitReady, type WaitOutcome } from '../../../src/apply/wait.js';
import type { Transport } from '../../../src/transport/types.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
let server: LocalApiServer;
let clock: FakeClock;
let transport: Transport;
let client: DynamicClient;

before(async () => {
  clock = new FakeClock();
  server = await startServer({ seed: 'empty', clock, crdEstablishDelayMs: 500 });
  transport = createTransport(restConfigFor(server), { logger: silentLogger, clock, env: {}, timeoutMs: 0 });
  client = new DynamicClient(transport);
});
after(async () => {
  transport.close();
  await server.stop();
});

/** Runs the waiter, moving the fake time forward 50 ms whenever everything is asleep. */
async function drive(p: Promise<WaitOutcome[]>, until = 60_000): Promise<WaitOutcome[]> {
  let done = false;
  p.finally(() => (done = true)).catch(() => undefined);
  const start = clock.now();
  while (!done && clock.now() - start < until) {
    await new Promise((r) => setImmediate(r));
    if (clock.pending > 0) clock.advance(50);
  }
  return p;
}

test('a new CRD: polled with back-off until Established (100, 200, 400 ms), then ready', async () => {
  const crds = client.resource(CRDS, { namespaced: false });
  const created = await crds.create(simpleCrd({ group: 'wait.kdyn.dev', plural: 'waiters', kind: 'Waiter' }));
  server.clearLog();
  const [o] = await drive(waitReady([{ handle: crds, name: 'waiters.wait.kdyn.dev', last: created }], { clock, timeoutMs: 10_000 }));
  assert.equal(o!.state, 'ready');
  // Judged from `last` at t=0 (no request), then GETs at 100, 300 (not yet) and 700 ms (established at 500).
  assert.equal(server.requestLog.filter((e) => e.method === 'GET').length, 3);
});

test('timeout: the last reason is reported; an aborted signal ends the wait as interrupted', async () => {
  const crds = client.resource(CRDS, { namespaced: false });
  await crds.create(simpleCrd({ group: 'slow.kdyn.dev', plural: 'slows', kind: 'Slow' }));
  const [t] = await drive(waitReady([{ handle: crds, name: 'slows.slow.kdyn.dev' }], { clock, timeoutMs: 300 }));
  assert.deepEqual(t, { state: 'timeout', message: 'not established yet' });
  await crds.create(simpleCrd({ group: 'stop.kdyn.dev', plural: 'stops', kind: 'Stop' }));
  const ac = new AbortController();
  const p = waitReady([{ handle: crds, name: 'stops.stop.kdyn.dev' }], { clock, timeoutMs: 10_000, signal: ac.signal });
  while (clock.pending === 0) await new Promise((r) => setImmediate(r));
  ac.abort();
  assert.equal((await p)[0]!.state, 'interrupted');
  const [gone] = await drive(waitReady([{ handle: crds, name: 'never.kdyn.dev' }], { clock, timeoutMs: 1000 }));
  assert.equal(gone!.state, 'gone');
});
