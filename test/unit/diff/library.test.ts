/**
 * The library's diff (src/diff/diff.ts) over a connect() result against the local API server:
 * created / changed / unchanged, nothing persisted, `-l`, the `pruned` seam shown as deleted, an
 * instance of a CRD only the input declares checked locally, the unified text; and the example of
 * docs/library.md run as written.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { manifestFile } from '../../e2e/apply-helpers.js';
import { docsExample, runExample } from '../../support/readme-example.js';
import { connect, type Connection } from '../../../src/connect.js';
import { diff } from '../../../src/diff/diff.js';
import { unifiedDiff } from '../../../src/diff/program.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

let env: ServerEnv;
let k: Connection;
const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>): Unstructured => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'demo', ...(labels ? { labels } : {}) }, data });
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-diff-lib-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
  const h = k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('demo');
  for (const o of [cm('lib-same', { a: '1' }), cm('lib-changed', { a: '1' }), cm('lib-orphan', { z: '1' })]) await h.apply(o);
});
after(async () => {
  k.close();
  await env.stop();
});

test('created, changed and unchanged objects; nothing persisted', async () => {
  const before = env.server.store.resourceVersion;
  const r = await diff([cm('lib-same', { a: '1' }), cm('lib-changed', { a: '2' }), cm('lib-new', { n: '1' })], k);
  assert.deepEqual(r.objects.map((o) => [o.name, o.action, o.differs]), [
    ['v1.ConfigMap.demo.lib-same', 'unchanged', false],
    ['v1.ConfigMap.demo.lib-changed', 'changed', true],
    ['v1.ConfigMap.demo.lib-new', 'created', true],
  ]);
  assert.equal(r.differs, true);
  assert.deepEqual(r.objects[1]!.live?.data, { a: '1' });
  assert.deepEqual(r.objects[1]!.merged?.data, { a: '2' });
  assert.equal(r.objects[2]!.live, null);
  assert.equal(env.server.store.resourceVersion, before, 'a dry run');
  assert.equal(env.server.store.get('', 'configmaps', 'demo', 'lib-new'), undefined);
});

test('selector filters the input; pruned objects are shown as deleted; the unified text has them all', async () => {
  const orphan = await k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('demo').get('lib-orphan');
  let seen: string[] = [];
  const r = await diff([cm('lib-changed', { a: '3' }, { app: 'x' }), cm('lib-new', { n: '1' })], k, {
    selector: 'app=x',
    pruned: async (diffed) => {
      seen = diffed.map((o) => o.name);
      return [orphan];
    },
  });
  assert.deepEqual(seen, ['v1.ConfigMap.demo.lib-changed'], 'the pruner is told what the input holds');
  assert.deepEqual(r.objects.map((o) => [o.name, o.action]), [['v1.ConfigMap.demo.lib-changed', 'changed'], ['v1.ConfigMap.demo.lib-orphan', 'deleted']]);
  assert.equal(r.objects[1]!.texts.merged, '');
  const u = await unifiedDiff(r.objects, { env: { PATH: process.env.PATH } });
  assert.equal(u.exitCode, 1);
  assert.match(u.stdout, /^-  z: "1"$/m, 'the deleted object\'s lines removed');
  assert.match(u.stdout, /^\+  a: "3"$/m);
});

test('an instance of a CRD only the input declares: created, checked locally, not sent', async () => {
  const crd: Unstructured = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.lib.kdyn.dev' },
    spec: { group: 'lib.kdyn.dev', scope: 'Namespaced', names: { kind: 'Gizmo', plural: 'gizmos' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } } }] },
  };
  const warnings: string[] = [];
  const r = await diff([crd, { apiVersion: 'lib.kdyn.dev/v1', kind: 'Gizmo', metadata: { name: 'g' }, spec: { n: 1, x: 2 } }], k, { namespace: 'demo', onWarning: (m) => warnings.push(m) });
  assert.deepEqual(r.objects.map((o) => [o.name, o.action, o.checkedLocally ?? false]), [
    ['apiextensions.k8s.io.v1.CustomResourceDefinition..gizmos.lib.kdyn.dev', 'created', false],
    ['lib.kdyn.dev.v1.Gizmo.demo.g', 'created', true],
  ]);
  assert.deepEqual(r.objects[1]!.merged?.spec, { n: 1 });
  assert.deepEqual(warnings, ['Warning: unknown field "spec.x"\n']);
  await assert.rejects(diff([crd, { apiVersion: 'lib.kdyn.dev/v1', kind: 'Gizmo', metadata: { name: 'bad' }, spec: { n: 'one' } }], k), /Gizmo\.lib\.kdyn\.dev "bad" from "input" document 2 is invalid .*: spec\.n: Invalid value/);
});

test('docs/library.md diff example: decodeManifests + diffManifests + unifiedDiff over a connect() result', async () => {
  await k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('demo').apply(cm('lib-doc', { a: '1' }), { fieldManager: 'my-tool' });
  manifestFile(env.dir, 'app.yaml', [cm('lib-doc', { a: '9' }), cm('lib-fresh', { f: '1' })]);
  const kubeconfig = join(env.dir, 'kubeconfig-demo');
  env.server.writeKubeconfig(kubeconfig, { namespace: 'demo' });
  const r = await runExample(docsExample('report = await diffManifests(manifests, k,'), { cwd: env.dir, env: { HOME: env.dir, KUBECONFIG: kubeconfig } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'changed v1.ConfigMap.demo.lib-doc\ncreated v1.ConfigMap.demo.lib-fresh\n');
  assert.match(r.err, /^\+  a: "9"$/m);
});
