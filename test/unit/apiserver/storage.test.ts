// The in-memory store: one global resourceVersion, ordered listing by (namespace, name) with
// paging, change events to subscribers and a bounded history for watch resumption (410 when too old).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, type StoreEvent } from '../../support/apiserver/storage.js';

const cm = (ns: string, name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, ...extra });

test('one resourceVersion counter across resources; stamps objects; events carry type and rv', () => {
  const s = new Store({ initialResourceVersion: 100 });
  const events: StoreEvent[] = [];
  const off = s.subscribe((e) => events.push(e));
  const a = s.create('', 'configmaps', cm('ns', 'a'));
  const b = s.create('apps', 'deployments', { metadata: { name: 'd', namespace: 'ns' } });
  const a2 = s.update('', 'configmaps', { ...cm('ns', 'a'), data: { x: '1' } });
  const gone = s.delete('', 'configmaps', 'ns', 'a');
  off();
  s.create('', 'configmaps', cm('ns', 'after-unsubscribe'));
  assert.deepEqual([a, b, a2, gone].map((o) => o!.metadata.resourceVersion), ['101', '102', '103', '104']);
  assert.deepEqual(events.map((e) => [e.type, e.resource, e.resourceVersion]), [
    ['ADDED', 'configmaps', 101],
    ['ADDED', 'deployments', 102],
    ['MODIFIED', 'configmaps', 103],
    ['DELETED', 'configmaps', 104],
  ]);
  assert.equal(events[3]!.object.data.x, '1', 'DELETED carries the last state');
  assert.equal(s.resourceVersion, 105);
  assert.equal(s.delete('', 'configmaps', 'ns', 'a'), undefined);
});

test('lists are ordered by namespace then name whatever the insertion order, and page with after/limit', () => {
  const s = new Store();
  const keys = ['b/x', 'a/z', 'a-b/m', 'a/a', 'c/q', 'a/m'];
  for (const k of keys) {
    const [ns, name] = k.split('/');
    s.create('', 'configmaps', cm(ns!, name!));
  }
  const all = s.list('', 'configmaps').items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  assert.deepEqual(all, ['a-b/m', 'a/a', 'a/m', 'a/z', 'b/x', 'c/q']);
  assert.deepEqual(s.list('', 'configmaps', { namespace: 'a' }).items.map((o) => o.metadata.name), ['a', 'm', 'z']);
  const p1 = s.list('', 'configmaps', { namespace: 'a', limit: 2 });
  assert.deepEqual(p1.items.map((o) => o.metadata.name), ['a', 'm']);
  assert.equal(p1.lastKey, 'a/m');
  assert.equal(p1.remaining, 1);
  const p2 = s.list('', 'configmaps', { namespace: 'a', limit: 2, after: p1.lastKey });
  assert.deepEqual(p2.items.map((o) => o.metadata.name), ['z']);
  assert.equal(p2.lastKey, undefined);
  assert.equal(s.count('', 'configmaps', 'a'), 3);
  assert.equal(s.count('', 'configmaps'), 6);
  const filtered = s.list('', 'configmaps', { filter: (o) => o.metadata.name !== 'a', limit: 2 });
  assert.deepEqual(filtered.items.map((o) => o.metadata.name), ['m', 'm']);
  s.deleteNamespaceContents('a');
  assert.deepEqual(s.list('', 'configmaps').items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ['a-b/m', 'b/x', 'c/q']);
});

test('eventsSince resumes from a resourceVersion; too old (compacted or out of history) is undefined; history is per resource type', () => {
  const s = new Store({ historyLimit: 3 });
  const start = s.resourceVersion;
  for (const n of ['a', 'b', 'c', 'd', 'e']) s.create('', 'configmaps', cm('ns', n));
  // Only the last 3 events are kept: resuming needs rv >= the one before them.
  assert.equal(s.eventsSince('', 'configmaps', start), undefined);
  assert.deepEqual(s.eventsSince('', 'configmaps', start + 2)!.map((e) => e.object.metadata.name), ['c', 'd', 'e']);
  assert.deepEqual(s.eventsSince('', 'configmaps', start + 4)!.map((e) => e.object.metadata.name), ['e']);
  assert.deepEqual(s.eventsSince('', 'configmaps', s.resourceVersion), []);
  s.compact();
  assert.equal(s.eventsSince('', 'configmaps', start + 4), undefined);
  assert.deepEqual(s.eventsSince('', 'configmaps', s.resourceVersion), []);
  assert.equal(s.oldestResourceVersion, s.resourceVersion);
  // Another type's writes do not push configmaps out of their history.
  const mark = s.resourceVersion;
  s.create('', 'configmaps', cm('ns', 'f'));
  for (const n of ['s1', 's2', 's3', 's4']) s.create('', 'secrets', cm('ns', n));
  assert.deepEqual(s.eventsSince('', 'configmaps', mark)!.map((e) => e.object.metadata.name), ['f']);
  assert.equal(s.eventsSince('', 'secrets', mark), undefined);
  assert.equal(s.oldestWatchableVersion('', 'secrets'), mark + 2);
});

// How long the paging takes is a benchmark: `npm run bench -- --case server-store-page-20k`.
test('listing 20,000 objects in pages of 500 returns each once', () => {
  const s = new Store();
  for (let i = 0; i < 20000; i++) s.create('', 'configmaps', cm('bench', `cm-${String(i).padStart(5, '0')}`));
  let after: string | undefined;
  let n = 0;
  for (;;) {
    const p = s.list('', 'configmaps', { namespace: 'bench', limit: 500, after });
    n += p.items.length;
    if (!p.lastKey) break;
    after = p.lastKey;
  }
  assert.equal(n, 20000);
});
