/**
 * `kdyn delete` on a real kube-apiserver: a CRD with objects in two namespaces (the one-line warning
 * with their count; the wait until the real server has removed the CRD; the discovery cache kdyn and
 * kubectl share marked stale, so `kubectl api-resources --cached` and kdyn no longer see the
 * resource), and `-f` of several objects next to kubectl, with `--wait` holding until an object's
 * finalizer is removed.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKdyn } from '../support/cli.js';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';

describe('delete on a real kube-apiserver', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
  });
  after(() => env?.stop());

  const write = (name: string, text: string): string => {
    writeFileSync(join(env.dir, name), text);
    return name;
  };

  test('a CRD: the warning counts its objects in every namespace; after the wait, kubectl --cached and kdyn see it gone', async (t) => {
    const [a, b] = [await env.namespace('crd-del'), await env.namespace('crd-del')];
    const crd = write(
      'crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.del.kdyn.dev}
spec:
  group: del.kdyn.dev
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
${[[a, 'g1'], [a, 'g2'], [b, 'g3']].map(([ns, n]) => `---\napiVersion: del.kdyn.dev/v1\nkind: Gizmo\nmetadata: {name: ${n}, namespace: ${ns}}\n`).join('')}`,
    );
    const shared = { home: 'home-shared' };
    const applied = await env.kdyn(['apply', '-f', crd], shared);
    assert.equal(applied.code, 0, applied.err);
    // Both tools' caches (one ~/.kube/cache) know gizmos.
    const listed = await env.kdyn(['api-resources'], shared);
    assert.match(listed.out, /^gizmos +del\.kdyn\.dev\/v1 /m);

    const r = await env.kdyn(['delete', 'crd', 'gizmos.del.kdyn.dev', '--timeout', '2m'], shared);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'customresourcedefinition.apiextensions.k8s.io "gizmos.del.kdyn.dev" deleted\n');
    assert.equal(r.err, 'Warning: deleting customresourcedefinition.apiextensions.k8s.io "gizmos.del.kdyn.dev" also deletes its 3 gizmos.del.kdyn.dev objects (in every namespace)\n');
    // --wait held until the real server removed it (its instances cleaned up first).
    assert.equal((await env.cluster.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.del.kdyn.dev')).status, 404);

    const gone = await env.kdyn(['get', 'gizmos', '-A'], shared);
    assert.equal(gone.code, 1);
    assert.equal(gone.err, 'error: the server doesn\'t have a resource type "gizmos"\n');
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const cached = await env.kubectl(['api-resources', '--cached'], shared);
    assert.equal(cached.code, 0, cached.err);
    assert.doesNotMatch(cached.out, /^gizmos /m, 'kubectl asked the server again: its cache was marked stale');
  });

  test('-f of several objects next to kubectl: the same lines; --wait holds until a finalizer is removed', async (t) => {
    const ns = await env.namespace('f-del');
    const objects = (hold: boolean) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one, namespace: ${ns}${hold ? ', finalizers: [kdyn.dev/hold]' : ''}}\n---\n` +
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two, namespace: ${ns}}\n---\n` +
      `apiVersion: v1\nkind: Secret\nmetadata: {name: three, namespace: ${ns}}\nstringData: {k: v}\n`;
    const plain = write('plain.yaml', objects(false));
    const want = 'configmap "one" deleted\nconfigmap "two" deleted\nsecret "three" deleted\n';
    if (HAS_KUBECTL) {
      assert.equal((await env.kubectl(['apply', '--server-side', '-f', plain])).code, 0);
      const c = await env.kubectl(['delete', '-f', plain]);
      assert.deepEqual([c.code, c.out, c.err], [0, want, '']);
    } else t.diagnostic(NO_KUBECTL);
    assert.equal((await env.kdyn(['apply', '-f', plain])).code, 0);
    const k = await env.kdyn(['delete', '-f', plain]);
    assert.deepEqual([k.code, k.out, k.err], [0, want, '']);

    // One object held by a finalizer: kdyn prints the deletions, then waits; removing the finalizer ends the wait.
    const held = write('held.yaml', objects(true));
    assert.equal((await env.kdyn(['apply', '-f', held])).code, 0);
    let released: Promise<unknown> | undefined;
    const run = runKdyn(['delete', '-f', held, '--timeout', '2m'], {
      env: env.toolEnv('home-kdyn'),
      cwd: env.dir,
      timeoutMs: 180_000,
      onStdout: (soFar) => {
        if (released || soFar !== want) return;
        released = env.cluster.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/one`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
      },
    });
    const w = await run;
    assert.ok(released, 'the deletions were printed before the wait ended');
    const patched = (await released) as { status: number };
    assert.equal(patched.status, 200);
    assert.deepEqual([w.code, w.out, w.err], [0, want, '']);
    assert.equal((await env.cluster.request('GET', `/api/v1/namespaces/${ns}/configmaps/one`)).status, 404);
  });
});
