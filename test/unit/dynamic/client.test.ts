/**
 * The dynamic client against the local API server over real sockets: every verb, paging with
 * limit/continue (seen in the request log), Table requests, StatusErrors, and URL validation.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { connect, type Connection } from '../../../src/connect.js';
import { DynamicClient, TABLE_ACCEPT, parseWarningHeaders } from '../../../src/dynamic/client.js';
import { InvalidPathSegmentError } from '../../../src/dynamic/url.js';
import { StatusError } from '../../../src/core/errors.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const rockets = { group: 'demo.kdyn.dev', version: 'v1', resource: 'rockets' };

let server: LocalApiServer;
let conn: Connection;
let client: DynamicClient;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-dynamic-'));
  server = await startServer({ tls: true, seed: 'demo', configmaps: 7, namespace: 'paging' });
  server.writeKubeconfig(join(dir, 'kubeconfig'));
  conn = await connect({ kubeconfig: join(dir, 'kubeconfig'), env: { HOME: dir }, cacheDir: join(dir, 'cache') });
  client = conn.client;
});
after(async () => {
  conn?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const requests = (path: string) => server.requestLog.filter((r) => r.path === path);

describe('read', () => {
  test('get returns the unstructured object', async () => {
    const cm = await client.resource(configmaps, { namespaced: true }).namespace('demo').get('app-config');
    assert.equal(cm.kind, 'ConfigMap');
    assert.equal(cm.metadata?.name, 'app-config');
    assert.deepEqual((cm as { data?: unknown }).data, { 'log.level': 'info', 'feature.flags': 'a,b' });
  });

  test('list pages with limit and follows continue tokens until the end', async () => {
    server.clearLog();
    const h = client.resource(configmaps, { namespaced: true }).namespace('paging');
    const sizes: number[] = [];
    const names: string[] = [];
    for await (const page of h.list({ limit: 3 })) {
      sizes.push(page.items.length);
      for (const item of page.items) {
        names.push(item.metadata!.name!);
        // items carry apiVersion/kind even when the server leaves them out
        assert.equal(item.kind, 'ConfigMap');
        assert.equal(item.apiVersion, 'v1');
      }
    }
    const seen = requests('/api/v1/namespaces/paging/configmaps');
    assert.deepEqual(sizes, [3, 3, 1]);
    assert.equal(new Set(names).size, 7);
    assert.equal(seen.length, 3);
    assert.match(seen[0]!.query, /^limit=3$/);
    assert.match(seen[1]!.query, /limit=3&continue=./);
    assert.match(seen[2]!.query, /continue=./);
  });

  test('listAll collects every page; without limit one request', async () => {
    server.clearLog();
    const h = client.resource(configmaps, { namespaced: true }).namespace('paging');
    const all = await h.listAll({ limit: 2 });
    assert.equal(all.items.length, 7);
    assert.equal(all.metadata.continue ?? '', '');
    assert.equal(requests('/api/v1/namespaces/paging/configmaps').length, 4);
    server.clearLog();
    assert.equal((await h.listAll()).items.length, 7);
    assert.deepEqual(requests('/api/v1/namespaces/paging/configmaps').map((r) => r.query), ['']);
  });

  test('label and field selectors go to the server', async () => {
    server.clearLog();
    const h = client.resource(rockets, { namespaced: true });
    const byLabel = await h.listAll({ labelSelector: 'tier=heavy' });
    assert.ok(byLabel.items.length > 0);
    assert.ok(byLabel.items.every((r) => r.metadata?.labels?.tier === 'heavy'));
    const byField = await h.listAll({ fieldSelector: 'metadata.name=falcon' });
    assert.deepEqual(byField.items.map((r) => r.metadata?.name), ['falcon']);
    assert.deepEqual(requests('/apis/demo.kdyn.dev/v1/rockets').map((r) => decodeURIComponent(r.query)), ['labelSelector=tier=heavy', 'fieldSelector=metadata.name=falcon']);
  });

  test('a namespaced handle without a namespace lists across namespaces', async () => {
    const all = await client.resource(rockets, { namespaced: true }).listAll();
    assert.ok(new Set(all.items.map((r) => r.metadata?.namespace)).size >= 2);
  });

  test('a cluster-scoped handle ignores namespace()', async () => {
    const h = client.resource({ group: '', version: 'v1', resource: 'namespaces' }, { namespaced: false }).namespace('demo');
    assert.equal(h.collectionPath(), '/api/v1/namespaces');
    assert.equal((await h.get('demo')).metadata?.name, 'demo');
  });

  test('listTable and getTable ask for server-side printing', async () => {
    server.clearLog();
    const h = client.resource(rockets, { namespaced: true }).namespace('demo');
    const pages = [];
    for await (const t of h.listTable({ limit: 1, includeObject: 'Object' })) pages.push(t);
    assert.equal(pages.length, 2);
    assert.deepEqual(pages[0]!.columnDefinitions.map((c) => c.name), ['Name', 'Stage', 'Engines', 'Pad', 'Age']);
    assert.equal(pages[0]!.rows[0]!.object?.kind, 'Rocket');
    const log = requests('/apis/demo.kdyn.dev/v1/namespaces/demo/rockets');
    assert.equal(log[0]!.accept, TABLE_ACCEPT);
    assert.match(log[0]!.query, /includeObject=Object/);
    const one = await h.getTable('falcon');
    assert.equal(one.rows.length, 1);
    assert.equal(one.rows[0]!.cells[0], 'falcon');
  });
});

describe('write', () => {
  const ns = 'demo';
  const h = () => client.resource(configmaps, { namespaced: true }).namespace(ns);

  test('create, update, merge patch, JSON patch, delete', async () => {
    const created = await h().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dyn-1' }, data: { a: '1' } }, { fieldManager: 'kdyn-test' });
    assert.equal(created.metadata?.name, 'dyn-1');
    assert.ok(created.metadata?.resourceVersion);

    const updated = await h().update({ ...created, data: { a: '2' } });
    assert.deepEqual((updated as { data?: unknown }).data, { a: '2' });
    assert.notEqual(updated.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const merged = await h().patch('dyn-1', { data: { b: '3' } }, 'merge');
    assert.deepEqual((merged as { data?: unknown }).data, { a: '2', b: '3' });

    const jsonPatched = await h().patch('dyn-1', [{ op: 'remove', path: '/data/a' }], 'json');
    assert.deepEqual((jsonPatched as { data?: unknown }).data, { b: '3' });

    server.clearLog();
    await h().delete('dyn-1');
    assert.equal(server.requestLog[0]!.method, 'DELETE');
    await assert.rejects(h().get('dyn-1'), (e: unknown) => e instanceof StatusError && e.code === 404);
  });

  test('dryRun create validates without persisting', async () => {
    server.clearLog();
    await h().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } }, { dryRun: true });
    assert.match(server.requestLog[0]!.query, /dryRun=All/);
    await assert.rejects(h().get('dry'), (e: unknown) => e instanceof StatusError && e.reason === 'NotFound');
  });

  test('server-side apply is a patch of type apply (fieldManager, force)', async () => {
    server.clearLog();
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-1' }, data: { k: 'v' } };
    const result = await h().patch('ssa-1', obj, 'apply', { fieldManager: 'kdyn-test', force: true }).catch((e: unknown) => e);
    assert.equal(server.requestLog[0]!.method, 'PATCH');
    assert.equal(server.requestLog[0]!.path, '/api/v1/namespaces/demo/configmaps/ssa-1');
    assert.match(server.requestLog[0]!.query, /fieldManager=kdyn-test/);
    assert.match(server.requestLog[0]!.query, /force=true/);
    if (result instanceof StatusError) {
      // The local server learns server-side apply in the next issue; until then it refuses the media type.
      assert.equal(result.code, 415);
      assert.match(result.message, /application\/apply-patch\+yaml/);
      return;
    }
    const applied = result as Unstructured;
    assert.deepEqual((applied as { data?: unknown }).data, { k: 'v' });
    const managers = (applied.metadata?.managedFields ?? []).map((f) => [f.manager, f.operation]);
    assert.deepEqual(managers, [['kdyn-test', 'Apply']]);
    await h().delete('ssa-1');
  });

  test('update needs metadata.name', async () => {
    await assert.rejects(h().update({ data: {} } as Unstructured), /no metadata\.name/);
  });

  test('custom resources are plain objects too', async () => {
    const r = client.resource(rockets, { namespaced: true }).namespace('demo');
    const patched = await r.patch('falcon', { spec: { engines: 10 } }, 'merge');
    assert.equal((patched as { spec: { engines: number } }).spec.engines, 10);
  });
});

describe('errors', () => {
  test('a missing object is a StatusError with the server\'s Status and kubectl\'s message', async () => {
    const err = await client.resource(configmaps, { namespaced: true }).namespace('demo').get('zz').catch((e) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 404);
    assert.equal(err.reason, 'NotFound');
    assert.equal(err.status.details?.name, 'zz');
    assert.equal(err.message, 'Error from server (NotFound): configmaps "zz" not found');
  });

  test('AlreadyExists on a second create', async () => {
    const err = await client.resource(configmaps, { namespaced: true }).namespace('demo').create({ metadata: { name: 'app-config' } }).catch((e) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.reason, 'AlreadyExists');
    assert.equal(err.code, 409);
  });

  test('an unserved resource is a 404 StatusError without details', async () => {
    const err = await client.resource({ group: 'nope.example.com', version: 'v1', resource: 'things' }).listPage().catch((e) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 404);
    assert.equal(err.status.details?.name, undefined);
  });

  test('invalid names fail before any request', async () => {
    server.clearLog();
    const h = client.resource(configmaps, { namespaced: true }).namespace('demo');
    await assert.rejects(h.get('../secrets/x'), InvalidPathSegmentError);
    await assert.rejects(h.delete('..'), InvalidPathSegmentError);
    await assert.rejects(client.resource(configmaps, { namespaced: true }).namespace('a/b').listPage(), InvalidPathSegmentError);
    assert.equal(server.requestLog.length, 0);
  });

  test('a namespaced object verb without a namespace is refused', async () => {
    await assert.rejects(client.resource(configmaps, { namespaced: true }).get('app-config'), /a namespace is required/);
  });
});

describe('with the RESTMapper (library use)', () => {
  test('resolve a short name, then list through the mapping', async () => {
    const m = await conn.mapper.resourceFor('rkt');
    assert.deepEqual(m.gvr, rockets);
    const list = await conn.client.resource(m.gvr, m).namespace('demo').listAll();
    assert.deepEqual(list.items.map((i) => i.metadata?.name).sort(), ['electron', 'falcon']);
  });
});

test('parseWarningHeaders', () => {
  assert.deepEqual(parseWarningHeaders(['299 - "unknown field \\"spec.x\\""', '299 - "a", 299 - "b"']), ['unknown field "spec.x"', 'a', 'b']);
});
