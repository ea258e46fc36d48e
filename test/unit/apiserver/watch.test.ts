// Watch streams of the local API server over real sockets: resourceVersion semantics, history and
// 410, bookmarks and timeouts on an injected clock, selectors, Table events, streaming lists, every
// change path, and the watch faults (close after N events or a time, restart).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { simpleCrd } from '../../support/apiserver/crds.js';
import { call, configMap } from './helpers.js';
import { openWatch, tick } from './watch-helpers.js';

const CM = '/api/v1/namespaces/w/configmaps';
const names = (events: Array<{ object: any }>) => events.map((e) => e.object.metadata?.name);
const types = (events: Array<{ type: string }>) => events.map((e) => e.type);

async function mk(server: LocalApiServer, name: string, labels?: Record<string, string>): Promise<any> {
  const r = await call(server, 'POST', CM, { body: configMap(name, 'w', { a: '1' }, labels) });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

describe('watch', () => {
  let server: LocalApiServer;
  let clock: FakeClock;

  before(async () => {
    clock = new FakeClock();
    server = await startServer({ seed: 'empty', clock, watchHistory: 50, watchBookmarkIntervalMs: 10_000 });
    await call(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'w' } } });
    await call(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } } });
  });
  after(() => server?.stop());

  test('unset resourceVersion: ADDED for what exists (key order), then every change path emits its event', async () => {
    await mk(server, 'b');
    await mk(server, 'a');
    await call(server, 'POST', '/api/v1/namespaces/other/configmaps', { body: configMap('elsewhere', 'other') });
    const w = await openWatch(server, `${CM}?watch=true`);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    assert.equal(w.headers['transfer-encoding'], 'chunked');
    const initial = await w.next(2);
    assert.deepEqual(types(initial), ['ADDED', 'ADDED']);
    assert.deepEqual(names(initial), ['a', 'b']);
    assert.equal(initial[0]!.object.kind, 'ConfigMap');
    assert.equal(initial[0]!.object.apiVersion, 'v1');

    await mk(server, 'c');
    const put = (await call(server, 'GET', `${CM}/c`)).json;
    put.data = { a: '2' };
    assert.equal((await call(server, 'PUT', `${CM}/c`, { body: put })).status, 200);
    const patched = await call(server, 'PATCH', `${CM}/c`, { raw: '{"data":{"a":"3"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200);
    assert.equal((await call(server, 'DELETE', `${CM}/c`)).status, 200);
    assert.equal((await call(server, 'DELETE', CM)).status, 200); // deletecollection: a and b
    const all = await w.next(8);
    assert.deepEqual(types(all.slice(2)), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED', 'DELETED', 'DELETED']);
    assert.deepEqual(names(all.slice(2)), ['c', 'c', 'c', 'c', 'a', 'b']);
    assert.equal(all[4]!.object.metadata.resourceVersion, patched.json.metadata.resourceVersion);
    assert.deepEqual(all[4]!.object.data, { a: '3' });
    // Nothing from the other namespace.
    assert.ok(!names(w.events).includes('elsewhere'));
    w.close();
  });

  test('resourceVersion=0 starts with ADDED events; an exact resourceVersion replays the history after it', async () => {
    const x = await mk(server, 'x');
    await mk(server, 'y');
    await call(server, 'DELETE', `${CM}/x`);
    const zero = await openWatch(server, `${CM}?watch=1&resourceVersion=0`);
    assert.deepEqual(names(await zero.next(1)), ['y']);
    zero.close();
    const exact = await openWatch(server, `${CM}?watch=1&resourceVersion=${x.metadata.resourceVersion}`);
    const past = await exact.next(2);
    assert.deepEqual(types(past), ['ADDED', 'DELETED']);
    assert.deepEqual(names(past), ['y', 'x']);
    await call(server, 'DELETE', `${CM}/y`);
    assert.deepEqual(types(await exact.next(3)).slice(2), ['DELETED']);
    exact.close();
  });

  test('a resourceVersion older than the history: one ERROR event with 410 Expired, then the stream ends', async () => {
    const first = await mk(server, 'old');
    for (let i = 0; i < 55; i++) await call(server, 'PATCH', `${CM}/old`, { raw: `{"data":{"n":"${i}"}}`, headers: { 'content-type': 'application/merge-patch+json' } });
    const w = await openWatch(server, `${CM}?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    await w.ended;
    assert.equal(w.events.length, 1);
    const e = w.events[0]!;
    assert.equal(e.type, 'ERROR');
    assert.equal(e.object.kind, 'Status');
    assert.equal(e.object.code, 410);
    assert.equal(e.object.reason, 'Expired');
    const oldest = server.store.oldestWatchableVersion('', 'configmaps');
    assert.equal(e.object.message, `too old resource version: ${first.metadata.resourceVersion} (${oldest})`);
    // Other types keep their own history: namespaces from early on still replay.
    const ns = await openWatch(server, '/api/v1/namespaces?watch=1&resourceVersion=2');
    const nsEvents = await ns.next(1);
    assert.equal(nsEvents[0]!.type, 'ADDED');
    ns.close();
    await call(server, 'DELETE', `${CM}/old`);
  });

  test('bookmarks every interval and shortly before timeoutSeconds, on the injected clock; the stream ends at the timeout', async () => {
    await mk(server, 'bm');
    const rv = server.store.resourceVersion;
    const w = await openWatch(server, `${CM}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=25`);
    await tick();
    clock.advance(10_000);
    const [b1] = await w.next(1);
    assert.deepEqual(b1, { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(rv), creationTimestamp: null } } });
    await mk(server, 'bm2');
    await w.next(2);
    await tick();
    clock.advance(10_000); // 20 s: periodic
    await w.next(3);
    await tick();
    clock.advance(3_000); // 23 s: 2 s before the deadline
    const ev = await w.next(4);
    assert.deepEqual(types(ev), ['BOOKMARK', 'ADDED', 'BOOKMARK', 'BOOKMARK']);
    assert.equal(ev[3]!.object.metadata.resourceVersion, String(server.store.resourceVersion));
    await tick();
    clock.advance(2_000);
    await w.ended;
    assert.equal(w.events.length, 4);
    await call(server, 'DELETE', CM);
  });

  test('label and field selectors (metadata.name); objects moving in or out of the selector are ADDED or DELETED', async () => {
    const byLabel = await openWatch(server, `${CM}?watch=1&labelSelector=${encodeURIComponent('app=web')}`);
    const byName = await openWatch(server, `${CM}?watch=1&fieldSelector=${encodeURIComponent('metadata.name=n2')}`);
    await mk(server, 'n1', { app: 'web' });
    await mk(server, 'n2', { app: 'db' });
    await call(server, 'PATCH', `${CM}/n2`, { raw: '{"metadata":{"labels":{"app":"web"}}}', headers: { 'content-type': 'application/merge-patch+json' } });
    await call(server, 'PATCH', `${CM}/n1`, { raw: '{"metadata":{"labels":{"app":"db"}}}', headers: { 'content-type': 'application/merge-patch+json' } });
    const l = await byLabel.next(3);
    assert.deepEqual(l.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED n1', 'ADDED n2', 'DELETED n1']);
    const f = await byName.next(2);
    assert.deepEqual(f.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED n2', 'MODIFIED n2']);
    byLabel.close();
    byName.close();
    const bad = await call(server, 'GET', `${CM}?watch=1&fieldSelector=spec.nope%3Dx`);
    assert.equal(bad.status, 400);
    await call(server, 'DELETE', CM);
  });

  test('Table watch events as kubectl get -w asks for them: column definitions on the first event only', async () => {
    await mk(server, 't1');
    const w = await openWatch(server, `${CM}?watch=1`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' });
    await mk(server, 't2');
    const [a, b] = await w.next(2);
    assert.equal(a!.object.kind, 'Table');
    assert.equal(a!.object.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(a!.object.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(a!.object.rows[0].cells[0], 't1');
    assert.equal(a!.object.rows[0].object.kind, 'PartialObjectMetadata');
    assert.equal(b!.object.columnDefinitions, null);
    assert.equal(b!.object.rows[0].cells[0], 't2');
    assert.equal(b!.object.metadata.resourceVersion, b!.object.rows[0].object.metadata.resourceVersion);
    w.close();
    await call(server, 'DELETE', CM);
  });

  test('sendInitialEvents=true + resourceVersionMatch=NotOlderThan: ADDED, then the initial-events-end BOOKMARK, then changes', async () => {
    await mk(server, 's1');
    await mk(server, 's2');
    const w = await openWatch(server, `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=&allowWatchBookmarks=true`);
    const initial = await w.next(3);
    assert.deepEqual(types(initial), ['ADDED', 'ADDED', 'BOOKMARK']);
    assert.deepEqual(initial[2]!.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.equal(initial[2]!.object.metadata.resourceVersion, String(server.store.resourceVersion));
    await mk(server, 's3');
    assert.equal((await w.next(4))[3]!.object.metadata.name, 's3');
    w.close();
    const refused = await call(server, 'GET', `${CM}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`);
    assert.equal(refused.status, 422);
    assert.equal(refused.json.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    await call(server, 'DELETE', CM);
  });

  test('deleting a CRD emits DELETED for each of its objects', async () => {
    const crd = simpleCrd({ plural: 'widgets', kind: 'Widget', group: 'watch.example.com' });
    assert.equal((await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const base = '/apis/watch.example.com/v1/namespaces/w/widgets';
    for (const n of ['w1', 'w2']) {
      const r = await call(server, 'POST', base, { body: { apiVersion: 'watch.example.com/v1', kind: 'Widget', metadata: { name: n } } });
      assert.equal(r.status, 201, r.text);
    }
    const w = await openWatch(server, `${base}?watch=1&allowWatchBookmarks=true`);
    await w.next(2);
    assert.equal((await call(server, 'DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`)).status, 200);
    const ev = await w.next(4);
    assert.deepEqual(ev.slice(2).map((e) => `${e.type} ${e.object.metadata.name}`), ['DELETED w1', 'DELETED w2']);
    assert.equal(ev[2]!.object.kind, 'Widget');
    w.close();
  });

  test('faults: close each watch after N events, or after a time', async () => {
    server.faults.closeWatchesAfterEvents(2);
    await mk(server, 'f1');
    const w = await openWatch(server, `${CM}?watch=1`);
    await mk(server, 'f2');
    await mk(server, 'f3');
    await w.ended;
    assert.deepEqual(names(w.events), ['f1', 'f2']);
    server.faults.clear();
    server.faults.closeWatchesAfterMs(5_000);
    const t = await openWatch(server, `${CM}?watch=1`);
    await t.next(3);
    await tick();
    clock.advance(4_999);
    await tick();
    assert.equal(server.watches.count, 1);
    clock.advance(1);
    await t.ended;
    assert.equal(server.watches.count, 0);
    server.faults.clear();
    await call(server, 'DELETE', CM);
  });

  test('fault restart: open watches end, objects stay, an old resourceVersion gets 410', async () => {
    const o = await mk(server, 'r1');
    await mk(server, 'r1b'); // r1's resourceVersion is now older than the latest
    const w = await openWatch(server, `${CM}?watch=1`);
    await w.next(2);
    server.faults.restart();
    await w.ended;
    assert.equal((await call(server, 'GET', `${CM}/r1`)).status, 200);
    const old = await openWatch(server, `${CM}?watch=1&resourceVersion=${o.metadata.resourceVersion}`);
    await old.ended;
    assert.equal(old.events[0]!.type, 'ERROR');
    assert.equal(old.events[0]!.object.code, 410);
    const now = await openWatch(server, `${CM}?watch=1&resourceVersion=${server.store.resourceVersion}`);
    await mk(server, 'r2');
    assert.equal((await now.next(1))[0]!.object.metadata.name, 'r2');
    now.close();
  });
});
