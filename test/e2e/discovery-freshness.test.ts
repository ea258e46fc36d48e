/**
 * Issue 34: never stale where kubectl is fresh. kdyn and kubectl share one cache (HOME's
 * ~/.kube/cache), warm, within its TTL; then a CRD changes, and each command that enumerates types
 * must see it: after `kdyn apply` of a CRD, `kubectl api-resources --cached`, completion of types and
 * `kdyn types --all`; after a CRD created by another client, `kdyn get all` (a category). A warm
 * `get` of a known type still asks no discovery.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { rawRequest } from './raw-request.js';

/** A namespaced CRD in group `<name>.fresh.kdyn.dev`, kind Gadget, in the category `all`. */
function crdYaml(name: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.${name}.fresh.kdyn.dev
spec:
  group: ${name}.fresh.kdyn.dev
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget, categories: [all] }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer } } }
`;
}

describe('discovery after CRD changes, on a warm shared cache', () => {
  let server: LocalApiServer;
  let home: string;
  const env = () => ({ env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'kubeconfig') }, cwd: home });
  const kdyn = (args: string[]): Promise<Run> => runKdyn(args, env());
  const kubectl = (args: string[]): Promise<Run> => runCommand('kubectl', args, env());
  const discovery = () => server.requestLog.filter((e) => e.path === '/api' || e.path === '/apis' || /^\/apis?\/[^/]+(\/[^/]+)?$/.test(e.path));
  /** kdyn apply of a new CRD; the shared cache is warm (within its TTL) before it. */
  const applyCrd = async (name: string, extra: string[] = []): Promise<void> => {
    const file = join(home, `${name}.yaml`);
    writeFileSync(file, crdYaml(name));
    const r = await kdyn(['apply', '-f', file, ...extra]);
    assert.equal(r.code, 0, r.err);
  };

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'kdyn-e2e-fresh-'));
    server = await startServer({ tls: true, seed: 'demo' });
    server.writeKubeconfig(join(home, 'kubeconfig'));
    assert.equal((await kdyn(['api-resources'])).code, 0);
    if (hasKubectl()) assert.equal((await kubectl(['api-resources'])).code, 0);
  });
  after(async () => {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('kdyn apply of a CRD: kubectl api-resources --cached lists it next', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    await applyCrd('ka');
    const r = await kubectl(['api-resources', '--cached', '--api-group', 'ka.fresh.kdyn.dev']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^gadgets +ka\.fresh\.kdyn\.dev\/v1 +true +Gadget$/m);
  });

  test('kdyn apply of a CRD: completion of types offers it next', async () => {
    await applyCrd('kb');
    const r = await kdyn(['__complete', 'types']);
    assert.ok(r.out.split('\n').includes('gadgets.kb.fresh.kdyn.dev'), r.out);
  });

  test('kdyn apply of a CRD: kdyn types --all GROUP generates its kind next', async () => {
    await applyCrd('kc');
    const r = await kdyn(['types', '--all', 'kc.fresh.kdyn.dev']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^export interface Gadget \{$/m);
  });

  test('types --all with a group-version that cannot be discovered: its missing kinds are said, not silent', async () => {
    await applyCrd('kf');
    server.faults.failGroupVersion('kf.fresh.kdyn.dev/v1', 'stale');
    try {
      const r = await kdyn(['types', '--all']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /^Warning: stale GroupVersion discovery: kf\.fresh\.kdyn\.dev\/v1$/m);
      assert.doesNotMatch(r.out, /kf\.fresh\.kdyn\.dev/);
    } finally {
      server.faults.clear();
    }
  });

  test('a server-side dry run of a CRD changes nothing and invalidates nothing', async () => {
    assert.equal((await kdyn(['api-resources'])).code, 0);
    const cache = join(home, '.kube', 'cache');
    const mtimes = () => readdirSync(cache, { recursive: true, encoding: 'utf8' }).map((f) => join(cache, f)).filter((f) => statSync(f).isFile()).map((f) => `${f} ${statSync(f).mtimeMs}`);
    const before = mtimes();
    await applyCrd('kd', ['--dry-run=server']);
    assert.deepEqual(mtimes(), before);
  });

  test('a CRD in the category `all` created by another client: kdyn get all lists its objects at once; a warm get of a known type asks no discovery', async () => {
    assert.equal((await kdyn(['get', 'all', '-n', 'default', '-o', 'name'])).code, 0); // warm, from the cache
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.ke.fresh.kdyn.dev' }, spec: { group: 'ke.fresh.kdyn.dev', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', categories: ['all'] }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } };
    assert.equal(await rawRequest(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), 201);
    assert.equal(await rawRequest(server, 'POST', '/apis/ke.fresh.kdyn.dev/v1/namespaces/default/gadgets', { apiVersion: 'ke.fresh.kdyn.dev/v1', kind: 'Gadget', metadata: { name: 'g1' } }), 201);
    const r = await kdyn(['get', 'all', '-n', 'default', '-o', 'name']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^gadget\.ke\.fresh\.kdyn\.dev\/g1$/m);
    server.clearLog();
    assert.equal((await kdyn(['get', 'configmaps', '-n', 'default'])).code, 0);
    assert.deepEqual(discovery(), []);
  });
});
