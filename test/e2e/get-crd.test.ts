/**
 * `kdyn get` and the RESTMapper's moving parts, end to end: a CRD created a moment ago (warm cache),
 * a CRD deleted while the cache still maps the name (refresh and retry, or the unknown-name error),
 * short-name collisions and their warnings (next to kubectl), and paging visible in the request log.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { HAS_KUBECTL, startGetEnv, type GetEnv } from './get-helpers.js';
import { connect, type Connection } from '../../src/connect.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import { simpleCrd } from '../support/apiserver/crds.js';

let env: GetEnv;
let conn: Connection;
const crdGVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

before(async () => {
  env = await startGetEnv({ configmaps: 7, namespace: 'paging' });
  conn = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir }, cacheDir: `${env.dir}/lib-cache` });
});
after(async () => {
  conn.close();
  await env.stop();
});

function crd(group: string, plural: string, kind: string, shortNames: string[] = []): Unstructured {
  return simpleCrd({ group, plural, kind, shortNames }) as Unstructured;
}

async function createObject(group: string, plural: string, kind: string, name: string): Promise<void> {
  await conn.client
    .resource({ group, version: 'v1', resource: plural }, { namespaced: true })
    .namespace('demo')
    .create({ apiVersion: `${group}/v1`, kind, metadata: { name }, spec: { size: 1 } });
}

const crds = () => conn.client.resource(crdGVR, { namespaced: false });

describe('CRD lifecycle with a warm discovery cache', () => {
  test('a CRD created a moment ago is found (one refetch of discovery)', async (t) => {
    const warm = await env.kdyn(['get', 'cm', '-n', 'demo']);
    assert.equal(warm.code, 0, warm.err);
    await crds().create(crd('fresh.example.com', 'gadgets', 'Gadget'));
    await createObject('fresh.example.com', 'gadgets', 'Gadget', 'g1');
    env.server.clearLog();
    const r = await env.kdyn(['get', 'gadgets', '-n', 'demo', '-o', 'name']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'gadget.fresh.example.com/g1\n');
    // the miss refetched discovery once: /api and /apis
    assert.equal(env.server.requestLog.filter((e) => e.path === '/apis').length, 1);
    if (!HAS_KUBECTL) return t.skip('kubectl not on PATH: the comparison with kubectl did not run');
    const c = await env.kubectl(['get', 'gadgets', '-n', 'demo', '-o', 'name']);
    assert.equal(c.out, r.out);
  });

  test('a deleted CRD: a 404 on the collection refreshes the mapping and retries', async () => {
    await crds().create(crd('a.example.com', 'gizmos', 'Gizmo'));
    await createObject('a.example.com', 'gizmos', 'Gizmo', 'from-a');
    const first = await env.kdyn(['get', 'gizmos', '-n', 'demo', '-o', 'name']);
    assert.equal(first.out, 'gizmo.a.example.com/from-a\n', first.err);
    // Another group takes over the name; the cached discovery (fresh for 10 minutes) still says a.example.com.
    await crds().create(crd('b.example.com', 'gizmos', 'Gizmo'));
    await createObject('b.example.com', 'gizmos', 'Gizmo', 'from-b');
    await crds().delete('gizmos.a.example.com');
    env.server.clearLog();
    const r = await env.kdyn(['get', 'gizmos', '-n', 'demo']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^NAME +AGE\nfrom-b +/);
    const lists = env.server.requestLog.filter((e) => e.path.endsWith('/gizmos'));
    assert.deepEqual(lists.map((e) => [e.path, e.status]), [
      ['/apis/a.example.com/v1/namespaces/demo/gizmos', 404],
      ['/apis/b.example.com/v1/namespaces/demo/gizmos', 200],
    ]);
  });

  test('a deleted CRD whose name now maps to nothing: the unknown-name error, exit 1', async () => {
    const warm = await env.kdyn(['get', 'gizmos', '-n', 'demo', '-o', 'name']);
    assert.equal(warm.out, 'gizmo.b.example.com/from-b\n');
    await crds().delete('gizmos.b.example.com');
    for (const args of [['get', 'gizmos', '-n', 'demo'], ['get', 'gizmos', 'from-b', '-n', 'demo', '-o', 'json']]) {
      const r = await env.kdyn(args);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err, /^error: the server doesn't have a resource type "gizmos"/);
    }
  });
});

describe('ambiguity', () => {
  test('a short name claimed by two groups: kubectl\'s choice and its warning', async (t) => {
    await crds().create(crd('zz.example.com', 'boosters', 'Booster', ['rkt']));
    // Cold caches, so both tools see the new CRD (a warm cache still maps rkt without a warning).
    const args = (tool: string) => ['get', 'rkt', '-n', 'demo', '-o', 'name', '--cache-dir', `${env.dir}/cold-${tool}`];
    const r = await env.kdyn(args('kdyn'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^rocket\.demo\.kdyn\.dev\/electron$/m);
    assert.match(r.err, /Warning: short name "rkt" could also match lower priority resource boosters\.zz\.example\.com/);
    if (!HAS_KUBECTL) return t.skip('kubectl not on PATH');
    const c = await env.kubectl(args('kubectl'));
    assert.equal(r.out, c.out);
    assert.equal(r.err, c.err);
  });
});

describe('paging', () => {
  test('--chunk-size 2: several list requests with continue tokens, one table', async (t) => {
    env.server.clearLog();
    const r = await env.kdyn(['get', 'configmaps', '-n', 'paging', '--chunk-size', '2']);
    assert.equal(r.code, 0, r.err);
    const lists = env.server.requestLog.filter((e) => e.path === '/api/v1/namespaces/paging/configmaps');
    assert.equal(lists.length, 4);
    assert.equal(lists[0]!.query, 'limit=2&includeObject=None');
    for (const e of lists.slice(1)) assert.match(e.query, /^limit=2&continue=[^&]+/);
    assert.equal(r.out.split('\n').filter((l) => l.startsWith('NAME')).length, 1);
    assert.equal(r.out.trimEnd().split('\n').length, 8);
    if (!HAS_KUBECTL) return t.skip('kubectl not on PATH');
    const c = await env.kubectl(['get', 'configmaps', '-n', 'paging', '--chunk-size', '2']);
    assert.equal(r.out, c.out);
  });

  test('default chunk size 500; --chunk-size 0 turns paging off; -o name pages too', async () => {
    env.server.clearLog();
    await env.kdyn(['get', 'configmaps', '-n', 'paging']);
    await env.kdyn(['get', 'configmaps', '-n', 'paging', '--chunk-size', '0']);
    await env.kdyn(['get', 'configmaps', '-n', 'paging', '-o', 'name', '--chunk-size', '3']);
    const q = env.server.requestLog.filter((e) => e.path === '/api/v1/namespaces/paging/configmaps').map((e) => e.query.replace(/continue=[^&]+/, 'continue=T'));
    assert.deepEqual(q, ['limit=500&includeObject=None', 'includeObject=None', 'limit=3', 'limit=3&continue=T', 'limit=3&continue=T']);
  });

  test('--sort-by asks for whole objects and turns chunking off, as kubectl', async () => {
    env.server.clearLog();
    const r = await env.kdyn(['get', 'configmaps', '-n', 'paging', '--sort-by', '.metadata.name', '--chunk-size', '2']);
    assert.equal(r.code, 0, r.err);
    const q = env.server.requestLog.filter((e) => e.path === '/api/v1/namespaces/paging/configmaps').map((e) => e.query);
    assert.deepEqual(q, ['includeObject=Object']);
  });
});
