/**
 * The informer against the local API server (real HTTP over TLS): list then watch into an indexed
 * store, handlers for each change, late handlers, resync, a delete seen only through a relist
 * (DeletedFinalStateUnknown), watch streams cut every few events, a CRD installed after the informer
 * started, throwing handlers, and one shared watch per resource and selector. The informer's clock
 * is a FakeClock: backoffs and resyncs happen when the test advances it, never on real time.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { connect, type Connection } from '../../../src/connect.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import type { ResourceClient } from '../../../src/dynamic/client.js';
import { informer, type Informer } from '../../../src/informer/informer.js';
import { InformerFactory } from '../../../src/informer/factory.js';
import { byLabel, keyOf } from '../../../src/informer/indexer.js';
import type { InformerHealth } from '../../../src/informer/types.js';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { healthUntil, recordEvents } from '../../support/informer-events.js';
import { loadExchange } from '../../support/exchanges.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
let env: ServerEnv;
let k: Connection;
let serial = 0;

before(async () => {
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-informer-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
});
after(async () => {
  k?.close();
  await env?.stop();
});

/** A fresh namespace (its name returned) and the configmaps handle in it. */
async function namespace(): Promise<{ ns: string; cms: ResourceClient }> {
  const ns = `inf-${++serial}`;
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
  return { ns, cms: k.client.resource(CM, { namespaced: true }).namespace(ns) };
}

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): Unstructured => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

/** The server's objects as `key rv`, sorted; and the informer's. */
async function serverState(h: ResourceClient): Promise<string[]> {
  return (await h.listAll()).items.map((o) => `${keyOf(o)} ${o.metadata?.resourceVersion}`).sort();
}
const storeState = (inf: Informer) => inf.list().map((o) => `${keyOf(o)} ${o.metadata?.resourceVersion}`).sort();

test('list then watch: an indexed store, add/update/delete handlers, late handlers replayed, health', async () => {
  const { ns, cms } = await namespace();
  const a = await cms.create(cm('a', { app: 'x' }));
  await cms.create(cm('b', { app: 'y' }));
  const ac = new AbortController();
  const inf = informer(cms, { indexers: { app: byLabel('app') }, clock: new FakeClock() });
  const rec = recordEvents<Unstructured>({ initial: true });
  inf.addEventHandler(rec.handlers);
  assert.equal(inf.health().state, 'stopped');
  inf.start(ac.signal);
  assert.equal(await inf.waitForSync(), true);
  assert.ok(inf.hasSynced());
  assert.deepEqual(rec.lines.sort(), [`add ${ns}/a (initial)`, `add ${ns}/b (initial)`]);

  const c = await cms.create(cm('c', { app: 'x' }));
  const a2 = await cms.patch('a', { data: { v: '2' } }, 'merge');
  await cms.delete('b');
  await rec.until((l) => l.length === 5, 'the three changes');
  assert.deepEqual(rec.lines.slice(2), [`add ${ns}/c`, `update ${ns}/a ${a.metadata!.resourceVersion}->${a2.metadata!.resourceVersion}`, `delete ${ns}/b`]);
  assert.deepEqual(storeState(inf), await serverState(cms));
  assert.deepEqual(inf.byIndex('app', 'x').map(keyOf).sort(), [`${ns}/a`, `${ns}/c`]);
  assert.deepEqual(inf.byIndex('app', 'y'), [], 'b left the index with its delete');
  assert.deepEqual(inf.byIndex('namespace', ns).map(keyOf).sort(), [`${ns}/a`, `${ns}/c`]);
  assert.equal(inf.get(`${ns}/c`)?.metadata?.uid, c.metadata!.uid);
  assert.throws(() => inf.byIndex('nope', 'x'), /no index named "nope" \(defined: namespace, app\)/);

  const late = recordEvents<Unstructured>({ initial: true });
  const reg = inf.addEventHandler(late.handlers);
  assert.deepEqual(late.lines.sort(), [`add ${ns}/a (initial)`, `add ${ns}/c (initial)`], 'a late handler gets the store first');
  assert.ok(reg.hasSynced());
  reg.remove();
  await cms.delete('c');
  await rec.until((l) => l.includes(`delete ${ns}/c`), 'the delete of c');
  assert.equal(late.lines.length, 2, 'a removed handler gets nothing more');
  // The indexes were built on the first lookup above; from then on every change keeps them up to date.
  assert.deepEqual(inf.byIndex('app', 'x').map(keyOf), [`${ns}/a`], 'c left the index with its delete');
  await cms.patch('a', { metadata: { labels: { app: 'y' } } }, 'merge');
  await rec.until((l) => l.length === 7, 'the relabel of a');
  assert.deepEqual(inf.byIndex('app', 'x'), [], 'a left its old index value');
  assert.deepEqual(inf.byIndex('app', 'y').map(keyOf), [`${ns}/a`]);
  assert.deepEqual(inf.indexValues('app'), ['y']);

  const h = inf.health();
  assert.equal(h.state, 'watching');
  assert.equal(h.synced, true);
  assert.equal(h.relists, 0);
  assert.equal(h.objects, 1);
  assert.equal(typeof h.lastEventAt, 'number');
  ac.abort();
  assert.equal(inf.health().state, 'stopped');
  assert.equal(inf.isRunning, false);
});

test('a delete seen only through a relist (outage, watch history gone: 410) comes as DeletedFinalStateUnknown with the last known object', async () => {
  const { ns, cms } = await namespace();
  await cms.create(cm('keep'));
  const gone = await cms.create(cm('gone'));
  const change = await cms.create(cm('change'));
  const clock = new FakeClock();
  const inf = informer(cms, { clock, random: () => 0 });
  const rec = recordEvents<Unstructured>();
  inf.addEventHandler(rec.handlers);
  const ac = new AbortController();
  inf.start(ac.signal);
  await inf.waitForSync();

  await env.server.stopListening();
  await healthUntil(inf, (h) => h.state === 'backoff' && h.unreachable);
  // Changed while nobody watched, and the server's watch history is lost (as after a restart).
  env.server.store.delete('', 'configmaps', ns, 'gone');
  const changed = env.server.store.update('', 'configmaps', { ...env.server.store.get('', 'configmaps', ns, 'change')!, data: { v: 'new' } });
  env.server.restart();
  await env.server.listenAgain();
  clock.advance(2000);
  await rec.until((l) => l.length === 5, 'the relist');
  await healthUntil(inf, (x) => x.state === 'watching');
  assert.deepEqual(rec.lines.slice(3).sort(), [
    `delete? ${ns}/gone ${gone.metadata!.resourceVersion}`,
    `update ${ns}/change ${change.metadata!.resourceVersion}->${changed.metadata.resourceVersion}`,
  ]);
  const h = inf.health();
  assert.equal(h.relists, 1);
  assert.ok(h.failures >= 1);
  assert.deepEqual(rec.anomalies, [], 'the relist-coalesced events replay to the server state');
  assert.deepEqual([...rec.state].map(([key, v]) => `${key} ${v}`).sort(), await serverState(cms));
  assert.equal(h.state, 'watching');
  assert.deepEqual(storeState(inf), await serverState(cms));
  ac.abort();
});

test('watch streams cut every 3 events: every change reaches the handlers exactly once, the store equals the server', async () => {
  const { ns, cms } = await namespace();
  const inf = informer(cms, { clock: new FakeClock() });
  const rec = recordEvents<Unstructured>();
  inf.addEventHandler(rec.handlers);
  const ac = new AbortController();
  inf.start(ac.signal);
  await inf.waitForSync();
  env.server.faults.closeWatchesAfterEvents(3);
  const before = env.server.requestLog.length;
  try {
    const expected: string[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await cms.create(cm(`o${i}`));
      expected.push(`add ${ns}/o${i}`);
      const u = await cms.patch(`o${i}`, { data: { v: String(i) } }, 'merge');
      expected.push(`update ${ns}/o${i} ${o.metadata!.resourceVersion}->${u.metadata!.resourceVersion}`);
      if (i % 2) {
        await cms.delete(`o${i}`);
        expected.push(`delete ${ns}/o${i}`);
      }
    }
    await rec.until((l) => l.length === expected.length, `${expected.length} events`);
    assert.deepEqual(rec.lines, expected);
    assert.deepEqual(rec.anomalies, []);
    assert.deepEqual(storeState(inf), await serverState(cms));
    const watches = env.server.requestLog.slice(before).filter((r) => /watch=/.test(r.query)).length;
    assert.ok(watches >= 8, `the streams were cut and resumed (${watches} watch requests)`);
    assert.equal(inf.health().relists, 0, 'resumed from the last resourceVersion, no relist');
  } finally {
    env.server.faults.clear();
    ac.abort();
  }
});

test('resync replays the store to each handler on its own period, on the injected clock', async () => {
  const { ns, cms } = await namespace();
  await cms.create(cm('a'));
  await cms.create(cm('b'));
  const clock = new FakeClock();
  const inf = informer(cms, { clock, resyncMs: 60_000 });
  const every = recordEvents<Unstructured>();
  const never = recordEvents<Unstructured>();
  inf.addEventHandler(every.handlers);
  inf.addEventHandler(never.handlers, { resyncMs: 0 });
  const ac = new AbortController();
  inf.start(ac.signal);
  await inf.waitForSync();
  clock.advance(59_999);
  await new Promise((r) => setImmediate(r));
  assert.equal(every.lines.filter((l) => l.startsWith('resync')).length, 0);
  clock.advance(1);
  await every.until((l) => l.filter((x) => x.startsWith('resync')).length === 2, 'the first resync');
  clock.advance(60_000);
  await every.until((l) => l.filter((x) => x.startsWith('resync')).length === 4, 'the second resync');
  assert.deepEqual(every.lines.filter((l) => l.startsWith('resync')).sort(), [`resync ${ns}/a`, `resync ${ns}/a`, `resync ${ns}/b`, `resync ${ns}/b`]);
  assert.deepEqual(never.lines.sort(), [`add ${ns}/a`, `add ${ns}/b`], 'resyncMs: 0 opts out');
  ac.abort();
});

test('a CRD installed after the informer started: 404, backoff on the clock, then the list', async () => {
  const { ns } = await namespace();
  const crontabs = k.client.resource({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, { namespaced: true }).namespace(ns);
  const clock = new FakeClock();
  const inf = informer(crontabs, { clock, random: () => 0 });
  const ac = new AbortController();
  inf.start(ac.signal);
  const h = await healthUntil(inf, (x) => x.state === 'backoff');
  assert.match(h.lastError ?? '', /the server could not find the requested resource/);
  assert.equal(inf.hasSynced(), false);
  const crd = loadExchange(10).json as Unstructured;
  await k.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create({ ...crd, metadata: { name: crd.metadata!.name } });
  await crontabs.create({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'ct1' }, spec: { cronSpec: '* * * * */5' } });
  clock.advance(800);
  assert.equal(await inf.waitForSync(), true);
  assert.deepEqual(inf.keys(), [`${ns}/ct1`]);
  assert.equal(inf.health().relists, 1, 'the second list counts as a relist');
  ac.abort();
});

test('a throwing handler is reported and the others still get the event', async () => {
  const { ns, cms } = await namespace();
  const errors: string[] = [];
  const inf = informer(cms, { clock: new FakeClock(), onHandlerError: (e) => errors.push((e as Error).message) });
  inf.addEventHandler({
    onAdd: () => {
      throw new Error('handler bug');
    },
  });
  const rec = recordEvents<Unstructured>();
  inf.addEventHandler(rec.handlers);
  const ac = new AbortController();
  inf.start(ac.signal);
  await inf.waitForSync();
  await cms.create(cm('x'));
  await rec.until((l) => l.includes(`add ${ns}/x`), 'the add');
  assert.deepEqual(errors, ['handler bug']);
  ac.abort();
});

test('factory: one informer and one watch per resource, namespace and selectors, however many consumers; stops with the last one', async () => {
  const { ns, cms } = await namespace();
  await cms.create(cm('a', { app: 'x' }));
  await cms.create(cm('b', { app: 'y' }));
  const factory = new InformerFactory({ clock: new FakeClock() });
  const first = factory.informer(cms);
  const second = factory.informer(k.client.resource(CM, { namespaced: true }).namespace(ns), { indexers: { app: byLabel('app') } });
  const selected = factory.informer(cms, { labelSelector: 'app=x' });
  assert.equal(first, second, 'the same resource, namespace and selectors: the same informer');
  assert.notEqual(first, selected);
  assert.equal(factory.size, 2);
  const recA = recordEvents<Unstructured>();
  const recB = recordEvents<Unstructured>();
  const recS = recordEvents<Unstructured>();
  first.addEventHandler(recA.handlers);
  second.addEventHandler(recB.handlers);
  selected.addEventHandler(recS.handlers);
  const before = env.server.requestLog.length;
  const consumerA = new AbortController();
  const consumerB = new AbortController();
  factory.start(consumerA.signal);
  factory.start(consumerB.signal);
  assert.equal(await factory.waitForSync(), true);
  await cms.create(cm('c', { app: 'x' }));
  await recA.until((l) => l.includes(`add ${ns}/c`), 'c for consumer A');
  await recB.until((l) => l.includes(`add ${ns}/c`), 'c for consumer B');
  await recS.until((l) => l.includes(`add ${ns}/c`), 'c on the selector informer');
  assert.deepEqual(second.byIndex('app', 'x').map(keyOf).sort(), [`${ns}/a`, `${ns}/c`], "the second consumer's index on the shared store");
  assert.deepEqual(selected.keys().sort(), [`${ns}/a`, `${ns}/c`]);
  const requests = env.server.requestLog.slice(before).filter((r) => r.method === 'GET' && r.path === `/api/v1/namespaces/${ns}/configmaps`);
  assert.equal(requests.filter((r) => /watch=/.test(r.query)).length, 2, 'one watch per informer');
  assert.equal(requests.filter((r) => !/watch=/.test(r.query)).length, 2, 'one list per informer');

  consumerA.abort();
  assert.ok(first.isRunning && selected.isRunning, 'consumer B still uses them');
  consumerB.abort();
  assert.ok(!first.isRunning && !selected.isRunning, 'stopped with the last consumer');
});

test('generic over T: a generated type (client-node V1ConfigMap) types the store and the handlers', async () => {
  const { ns, cms } = await namespace();
  await cms.create(cm('typed', {}, { k: 'v' }));
  const inf = informer<V1ConfigMap>(cms, { clock: new FakeClock(), indexers: { k: (o) => Object.keys(o.data ?? {}) } });
  const seen: string[] = [];
  inf.addEventHandler({ onAdd: (o: V1ConfigMap) => seen.push(`${o.metadata?.name} ${o.data?.k}`) });
  const ac = new AbortController();
  inf.start(ac.signal);
  await inf.waitForSync();
  const got: V1ConfigMap | undefined = inf.get(`${ns}/typed`);
  assert.equal(got?.data?.k, 'v');
  assert.deepEqual(seen, ['typed v']);
  assert.deepEqual(inf.byIndex('k', 'k').map((o) => o.metadata?.name), ['typed']);
  ac.abort();
});
