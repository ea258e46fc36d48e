/**
 * Handles from names, typed kinds and objects (src/dynamic/handles.ts) against the local API server:
 * the mapper picks the resource of the object's exact version, the object's namespace wins, then the
 * given one, then the connection's; apply(obj), delete(obj) and deleteCollection with a selector act
 * where the object lives.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { connect, type Connection } from '../../src/connect.js';
import { createHandles, type Handles } from '../../src/handles.js';
import { KdynError, StatusError } from '../../src/core/errors.js';
import type { ObjectMeta, TypedKind } from '../../src/core/unstructured.js';

/** As `kdyn types` would generate it for the demo seed's Rocket (spec trimmed). */
interface Rocket {
  apiVersion: 'demo.kdyn.dev/v1';
  kind: 'Rocket';
  metadata: ObjectMeta;
  spec?: { engines?: number; launchPad?: string; stage?: string };
}
const ROCKET = { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket' } as TypedKind<Rocket>;

let server: LocalApiServer;
let conn: Connection;
let h: Handles;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-handles-'));
  server = await startServer({ tls: true, seed: 'demo' });
  server.writeKubeconfig(join(dir, 'kubeconfig'));
  conn = await connect({ kubeconfig: join(dir, 'kubeconfig'), env: { HOME: dir }, cacheDir: join(dir, 'cache') });
  h = createHandles({ mapper: conn.mapper, client: conn.client, namespace: 'demo' });
});
after(async () => {
  conn?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const rocket = (name: string, namespace: string | undefined, labels: Record<string, string> = {}): Rocket => ({
  apiVersion: 'demo.kdyn.dev/v1',
  kind: 'Rocket',
  metadata: { name, ...(namespace && { namespace }), labels },
  spec: { engines: 2, stage: 'assembly', launchPad: 'lc-1' },
});

describe('handles', () => {
  test('resource<T>(name): typed get and list in the connection namespace', async () => {
    const rockets = await h.resource<Rocket>('rkt');
    assert.equal(rockets.collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets');
    const falcon = await rockets.get('falcon');
    assert.equal(falcon.spec?.engines, 9);
    const names = (await rockets.listAll()).items.map((r) => r.metadata.name).sort();
    assert.deepEqual(names, ['electron', 'falcon']);
    const teamA = await h.resource<Rocket>('rockets', { namespace: 'team-a' });
    assert.deepEqual((await teamA.listAll()).items.map((r) => r.metadata.name), ['starship']);
  });

  test('kind(typed kind): the mapper resolves it; a cluster-scoped kind ignores the namespace', async () => {
    assert.equal((await h.kind(ROCKET, { namespace: 'team-a' })).collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/team-a/rockets');
    assert.equal((await h.kind({ apiVersion: 'v1', kind: 'Namespace' }, { namespace: 'x' })).collectionPath(), '/api/v1/namespaces');
  });

  test('for(obj): apply(obj) and delete(obj) where the object says, else the given or default namespace', async () => {
    const obj = rocket('ares', 'team-a', { fleet: 'mars' });
    const handle = await h.for(obj);
    assert.equal(handle.collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/team-a/rockets');
    const applied = await handle.apply(obj, { fieldManager: 'test' });
    assert.equal(applied.metadata.namespace, 'team-a');
    assert.equal(applied.spec?.launchPad, 'lc-1');
    const put = server.requestLog.filter((r) => r.method === 'PATCH' && r.path.endsWith('/rockets/ares'));
    assert.equal(put.length, 1);
    assert.match(put[0]!.query, /fieldManager=test/);
    assert.equal((await h.for(rocket('loose', undefined))).collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets');
    assert.equal((await h.for(rocket('loose', undefined), { namespace: 'team-a' })).collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/team-a/rockets');
    await handle.delete(obj);
    await assert.rejects(handle.get('ares'), (e: unknown) => e instanceof StatusError && e.status.code === 404);
  });

  test('deleteCollection deletes what the label selector matches, in the handle namespace only', async () => {
    const handle = await h.kind(ROCKET, { namespace: 'team-a' });
    for (const [name, fleet] of [['a1', 'x'], ['a2', 'x'], ['a3', 'y']] as const) await handle.create(rocket(name, 'team-a', { fleet }));
    await handle.deleteCollection({ labelSelector: 'fleet=x' });
    assert.deepEqual((await handle.listAll()).items.map((r) => r.metadata.name).sort(), ['a3', 'starship']);
    assert.deepEqual((await (await h.kind(ROCKET)).listAll()).items.map((r) => r.metadata.name).sort(), ['electron', 'falcon']);
  });

  test('the connection has the same handles, in its namespace', async () => {
    assert.equal((await conn.resource<Rocket>('rockets')).collectionPath(), `/apis/demo.kdyn.dev/v1/namespaces/${conn.namespace}/rockets`);
    assert.equal((await conn.for(rocket('x', 'team-a'))).collectionPath(), '/apis/demo.kdyn.dev/v1/namespaces/team-a/rockets');
    const falcon = await (await conn.kind(ROCKET, { namespace: 'demo' })).get('falcon');
    assert.equal(falcon.spec?.launchPad, 'lc-39a');
  });

  test('an object without apiVersion or kind, or of a kind the server lacks, is a one-line error', async () => {
    await assert.rejects(h.for({ metadata: { name: 'x' } }), (e: unknown) => e instanceof KdynError && e.message === 'object "x": apiVersion and kind are required to find its resource');
    await assert.rejects(h.for({ apiVersion: 'demo.kdyn.dev/v9', kind: 'Rocket' }), /no matches for kind "Rocket" in version "demo\.kdyn\.dev\/v9"/);
  });
});
