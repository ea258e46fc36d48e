/**
 * The watch-based waiter against the local API server, with one FakeClock for both the server (its
 * CRD establish delay) and the waiter (its deadline): no real waiting, exact request counts.
 */
import { test, before, after, beforeEach } from 'node:test';
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
  server = await startServer({ tls: true, seed: 'empty', clock, crdEstablishDelayMs: 500 });
  transport = createTransport(restConfigFor(server), { logger: silentLogger, clock, env: {}, timeoutMs: 0 });
  client = new DynamicClient(transport);
});
after(async () => {
  transport.close();
  await server.stop();
});
beforeEach(() => server.clearLog());

const tick = () => new Promise((r) => setImmediate(r));
/** Lets the requests in flight finish, then moves the fake time by `ms`. */
async function advance(ms: number): Promise<void> {
  for (let k = 0; k < 20; k++) await tick();
  clock.advance(ms);
}
const crds = () => client.resource(CRDS, { namespaced: false });
const crdsIn = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => simpleCrd({ group: `${prefix}${i}.kdyn.dev`, plural: 'things', kind: 'Thing' }));

test('a ready object (judged as last seen) costs no request', async () => {
  const ready = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  const [o] = await waitReady([{ handle: client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('default'), name: 'x', last: ready }], { clock, timeoutMs: 1000 });
  assert.equal(o!.state, 'ready');
  assert.deepEqual(server.requestLog, []);
});

test('new CRDs: watched until Established; a few one by one, more through one collection watch', async () => {
  for (const [n, prefix] of [[2, 'few'], [6, 'many']] as const) {
    const created = [];
    for (const crd of crdsIn(n, prefix)) created.push(await crds().create(crd));
    server.clearLog();
    const p = waitReady(created.map((c) => ({ handle: crds(), name: String(c.metadata?.name), last: c })), { clock, timeoutMs: 10_000 });
    // Once the watches are open, the server establishes the CRDs.
    const expected = n === 2 ? 2 : 1;
    while (server.requestLog.filter((e) => /(^|&)watch=/.test(e.query)).length < expected) await tick();
    await advance(500);
    const out: WaitOutcome[] = await p;
    assert.deepEqual(out.map((o) => o.state), Array(n).fill('ready'));
    const watches = server.requestLog.filter((e) => /(^|&)watch=/.test(e.query));
    const lists = server.requestLog.filter((e) => e.method === 'GET' && !/(^|&)watch=/.test(e.query));
    if (n === 2) {
      assert.equal(watches.length, 2, 'one watch per CRD');
      assert.ok(watches.every((w) => w.query.includes('fieldSelector=metadata.name')));
    } else {
      assert.equal(watches.length, 1, 'one watch for the collection');
      assert.equal(lists.length, 1);
    }
  }
});

test('timeout: the last reason is reported; an aborted signal ends the wait as interrupted', async () => {
  const [slow] = crdsIn(1, 'slow');
  const created = await crds().create(slow!);
  const p = waitReady([{ handle: crds(), name: String(created.metadata?.name), last: created }], { clock, timeoutMs: 300 });
  await advance(300);
  assert.deepEqual(await p, [{ state: 'timeout', message: 'not established yet' }]);
  const [stopping] = crdsIn(1, 'stop');
  await crds().create(stopping!);
  const ac = new AbortController();
  const q = waitReady([{ handle: crds(), name: String(stopping!.metadata.name) }], { clock, timeoutMs: 10_000, signal: ac.signal });
  for (let k = 0; k < 20; k++) await tick();
  ac.abort();
  assert.equal((await q)[0]!.state, 'interrupted');
});
