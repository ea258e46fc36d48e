// Lists over real sockets: limit/continue paging (opaque base64 tokens, remainingItemCount as
// recording 21, 400 for an undecodable token, 410 Expired after compaction), across namespaces,
// every label selector operator, field selectors, and list JSON shapes (typed vs custom).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange, shapeDiff } from '../../support/exchanges.js';
import { call, configMap } from './helpers.js';

describe('local API server: lists', () => {
  let server: LocalApiServer;
  before(async () => {
    server = await startServer({ seed: 'empty' });
    for (const ns of ['a', 'b']) await call(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    const labels: Array<Record<string, string>> = [
      { app: 'web', tier: 'front', rank: '1' },
      { app: 'web', tier: 'back', rank: '5' },
      { app: 'db', rank: '10' },
      { app: 'cache' },
      {},
    ];
    for (let i = 0; i < labels.length; i++) {
      await call(server, 'POST', '/api/v1/namespaces/a/configmaps', { body: configMap(`cm${i}`, 'a', { i: String(i) }, labels[i]) });
    }
    await call(server, 'POST', '/api/v1/namespaces/b/configmaps', { body: configMap('other', 'b', {}, { app: 'web' }) });
  });
  after(() => server.stop());

  const names = (r: { json: any }) => r.json.items.map((i: any) => (i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name));

  test('typed list shape: kind XList, resourceVersion, items without kind/apiVersion', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces/a/configmaps');
    assert.equal(r.json.kind, 'ConfigMapList');
    assert.equal(r.json.apiVersion, 'v1');
    assert.equal(r.json.metadata.resourceVersion, String(server.store.resourceVersion));
    assert.equal(r.json.metadata.continue, undefined);
    assert.equal(r.json.items[0].kind, undefined);
    assert.deepEqual(names(r), ['a/cm0', 'a/cm1', 'a/cm2', 'a/cm3', 'a/cm4']);
  });

  test('paging: limit/continue walks every item once, remainingItemCount counts down, the token is opaque base64', async () => {
    const seen: string[] = [];
    let cont = '';
    const remaining: number[] = [];
    for (let page = 0; page < 10; page++) {
      const r = await call(server, 'GET', `/api/v1/configmaps?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      assert.equal(r.status, 200, r.text);
      seen.push(...names(r));
      cont = r.json.metadata.continue ?? '';
      if (!cont) break;
      remaining.push(r.json.metadata.remainingItemCount);
      assert.match(cont, /^[A-Za-z0-9_-]+$/);
      const decoded = JSON.parse(Buffer.from(cont, 'base64url').toString());
      assert.equal(decoded.v, 'meta.k8s.io/v1');
    }
    assert.deepEqual(seen, ['a/cm0', 'a/cm1', 'a/cm2', 'a/cm3', 'a/cm4', 'b/other']);
    assert.deepEqual(remaining, [4, 2]);
  });

  test('custom resource lists are written like recordings 21/22 (sorted keys, continue "" at the end)', async () => {
    const s = await startServer({ seed: 'demo' });
    try {
      const p1 = await call(s, 'GET', '/apis/demo.kdyn.dev/v1/rockets?limit=2');
      assert.deepEqual(Object.keys(p1.json), ['apiVersion', 'items', 'kind', 'metadata']);
      assert.deepEqual(Object.keys(p1.json.metadata), ['continue', 'remainingItemCount', 'resourceVersion']);
      const ignore = [/\.(spec|status)[.:]/, /\.labels\.|f:labels\.f:/, /f:spec\.f:/, /f:status/];
      assert.deepEqual(shapeDiff(loadExchange(21).json, p1.json, ignore), []);
      const p2 = await call(s, 'GET', `/apis/demo.kdyn.dev/v1/rockets?limit=2&continue=${p1.json.metadata.continue}`);
      assert.equal(p2.json.metadata.continue, '');
      assert.equal(p2.json.metadata.remainingItemCount, undefined);
      assert.deepEqual(shapeDiff(loadExchange(22).json, p2.json, ignore), []);
      assert.equal(p1.json.items.length + p2.json.items.length, 3);
    } finally {
      await s.stop();
    }
  });

  test('continue tokens: 400 when undecodable, 410 Expired after compaction, resourceVersion with continue is 400', async () => {
    const bad = await call(server, 'GET', '/api/v1/configmaps?limit=1&continue=%25%25%25');
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /^invalid continue token: continue key is not valid/);
    const p1 = await call(server, 'GET', '/api/v1/configmaps?limit=1');
    const cont = p1.json.metadata.continue;
    const withRv = await call(server, 'GET', `/api/v1/configmaps?limit=1&continue=${cont}&resourceVersion=5`);
    assert.equal(withRv.status, 400);
    assert.equal(withRv.json.message, 'specifying resource version is not allowed when using continue');
    // A write plus compaction makes the token's resourceVersion too old, as etcd compaction does.
    await call(server, 'POST', '/api/v1/namespaces/b/configmaps', { body: configMap('late', 'b') });
    server.store.compact();
    const expired = await call(server, 'GET', `/api/v1/configmaps?limit=1&continue=${cont}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.json.reason, 'Expired');
    assert.equal(expired.json.code, 410);
    assert.match(expired.json.message, /^The provided continue parameter is too old to display a consistent list result\./);
    // The Status carries a token that continues inconsistently (at the latest resourceVersion).
    const next = await call(server, 'GET', `/api/v1/configmaps?limit=10&continue=${expired.json.metadata.continue}`);
    assert.equal(next.status, 200);
    assert.deepEqual(names(next), ['a/cm1', 'a/cm2', 'a/cm3', 'a/cm4', 'b/late', 'b/other']);
  });

  const sel = async (s: string) => names(await call(server, 'GET', `/api/v1/namespaces/a/configmaps?labelSelector=${encodeURIComponent(s)}`));

  test('label selectors: =, ==, !=, in, notin, exists, !key, gt/lt, comma means AND', async () => {
    assert.deepEqual(await sel('app=web'), ['a/cm0', 'a/cm1']);
    assert.deepEqual(await sel('app==db'), ['a/cm2']);
    assert.deepEqual(await sel('app!=web'), ['a/cm2', 'a/cm3', 'a/cm4'], '!= matches objects without the label too');
    assert.deepEqual(await sel('app in (db,cache)'), ['a/cm2', 'a/cm3']);
    assert.deepEqual(await sel('app notin (web,db)'), ['a/cm3', 'a/cm4']);
    assert.deepEqual(await sel('tier'), ['a/cm0', 'a/cm1']);
    assert.deepEqual(await sel('!tier'), ['a/cm2', 'a/cm3', 'a/cm4']);
    assert.deepEqual(await sel('rank>4'), ['a/cm1', 'a/cm2']);
    assert.deepEqual(await sel('rank<5'), ['a/cm0']);
    assert.deepEqual(await sel('app=web,tier=back'), ['a/cm1']);
    assert.deepEqual(await sel('app in (web), !rank'), []);
    assert.deepEqual(await sel(''), ['a/cm0', 'a/cm1', 'a/cm2', 'a/cm3', 'a/cm4']);
    const bad = await call(server, 'GET', `/api/v1/namespaces/a/configmaps?labelSelector=${encodeURIComponent('app in web')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.reason, 'BadRequest');
  });

  test('a selector omits remainingItemCount but still pages', async () => {
    const r = await call(server, 'GET', `/api/v1/configmaps?limit=1&labelSelector=app%3Dweb`);
    assert.deepEqual(names(r), ['a/cm0']);
    assert.ok(r.json.metadata.continue);
    assert.equal(r.json.metadata.remainingItemCount, undefined);
    const r2 = await call(server, 'GET', `/api/v1/configmaps?limit=5&labelSelector=app%3Dweb&continue=${r.json.metadata.continue}`);
    assert.deepEqual(names(r2), ['a/cm1', 'b/other']);
  });

  test('field selectors: metadata.name, metadata.namespace, != ; unsupported fields are 400 as a real server words them', async () => {
    const byName = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dcm3');
    assert.deepEqual(names(byName), ['a/cm3']);
    const byNs = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Db');
    assert.ok(names(byNs).includes('b/other'));
    assert.ok(names(byNs).every((n: string) => n.startsWith('b/')));
    const notNs = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace!%3Da,metadata.name!%3Dlate');
    assert.deepEqual(names(notNs), ['b/other']);
    const both = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dother&labelSelector=app%3Dweb');
    assert.deepEqual(names(both), ['b/other']);
    const bad = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=spec.foo%3Dx');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'field label not supported: spec.foo');
    const ns = await call(server, 'GET', '/api/v1/namespaces?fieldSelector=status.phase%3DActive');
    assert.ok(names(ns).includes('default'));
    const s = await startServer({ seed: 'demo' });
    try {
      const cr = await call(s, 'GET', '/apis/demo.kdyn.dev/v1/rockets?fieldSelector=spec.stage%3Dorbit');
      assert.equal(cr.status, 400);
      assert.equal(cr.json.message, '"spec.stage" is not a known field selector: only "metadata.name", "metadata.namespace"');
    } finally {
      await s.stop();
    }
  });
});
