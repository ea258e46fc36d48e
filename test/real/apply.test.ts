/**
 * `kdyn apply` (server-side apply) on a real kube-apiserver, next to `kubectl apply --server-side`:
 * a CRD with its instances in one file, no-op re-applies, conflicts with Update and Apply managers,
 * --force-conflicts, server dry run, and what the real server does with invalid fields.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv, type Run } from './real-helpers.js';

describe('apply on a real kube-apiserver, next to kubectl apply --server-side', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
  });
  after(() => env?.stop());

  /** Writes `text` to a file in the env's dir and returns its name (relative to the dir, where the tools run). */
  let files = 0;
  function manifest(text: string): string {
    const name = `m${++files}.yaml`;
    writeFileSync(join(env.dir, name), text);
    return name;
  }

  const crdAndInstance = (group: string, kind: string, ns: string) => {
    const plural = `${kind.toLowerCase()}s`;
    return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
---
apiVersion: ${group}/v1
kind: ${kind}
metadata: {name: first, namespace: ${ns}}
spec: {size: 1}
`;
  };

  async function get(path: string): Promise<{ status: number; obj: Record<string, any> }> {
    const res = await env.cluster.request('GET', path);
    return { status: res.status, obj: JSON.parse(res.body) as Record<string, any> };
  }

  /** The server's message in kubectl's `Error from server (Reason): MESSAGE` or `error: MESSAGE` first line. */
  const kubectlMessage = (c: Run) => c.err.split('\n')[0]!.replace(/^(Error from server( \([A-Za-z]+\))?|error): /, '');

  test('a CRD and its instances in one file: kdyn applies both in one call; a re-apply is unchanged', async (t) => {
    const ns = await env.namespace('apply-crd');
    const file = manifest(crdAndInstance('one.kdyn.dev', 'Sprocket', ns));
    const k = await env.kdyn(['apply', '-f', file]);
    assert.equal(k.code, 0, k.err);
    assert.equal(k.out, 'customresourcedefinition.apiextensions.k8s.io/sprockets.one.kdyn.dev serverside-applied\nsprocket.one.kdyn.dev/first serverside-applied\n');
    assert.equal((await get(`/apis/one.kdyn.dev/v1/namespaces/${ns}/sprockets/first`)).obj.spec.size, 1);
    // The real server keeps the resourceVersion of an apply that changes nothing.
    const again = await env.kdyn(['apply', '-f', file]);
    assert.equal(again.code, 0, again.err);
    assert.equal(again.out, 'customresourcedefinition.apiextensions.k8s.io/sprockets.one.kdyn.dev unchanged\nsprocket.one.kdyn.dev/first unchanged\n');

    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    // kubectl, on the same kind of file: the instance fails until a second run (a documented difference).
    const other = manifest(crdAndInstance('two.kdyn.dev', 'Sprocket', ns));
    const c = await env.kubectl(['apply', '--server-side', '-f', other]);
    assert.equal(c.code, 1);
    assert.match(c.err, /no matches for kind "Sprocket" in version "two\.kdyn\.dev\/v1"\nensure CRDs are installed first\n$/);
    const c2 = await env.kubectl(['apply', '--server-side', '-f', other]);
    assert.equal(c2.code, 0, c2.err);
    assert.match(c2.out, /^customresourcedefinition\.apiextensions\.k8s\.io\/sprockets\.two\.kdyn\.dev serverside-applied\nsprocket\.two\.kdyn\.dev\/first serverside-applied\n$/);
  });

  // The hint names --field-manager only when one Apply manager owns every conflicting field (issue 22).
  for (const [what, setUp, conflict, hint] of [
    ['an Update manager (kubectl create)', ['create', 'configmap', 'shared', '--from-literal=k=a'], 'conflict with "kubectl-create" using v1: .data.k', 'rerun with --force-conflicts to take these fields over'],
    ['another Apply manager', ['apply', '--server-side', '--field-manager=other', '-f', '-'], 'conflict with "other": .data.k', 'rerun with --force-conflicts to take these fields over, or with --field-manager=other to apply as "other", which owns them'],
  ] as const) {
    test(`a conflict with ${what}: kdyn fails that object with the server's conflict; --force-conflicts takes the field`, async (t) => {
      if (!HAS_KUBECTL) return t.skip(`${NO_KUBECTL} (it sets up the other field manager)`);
      const ns = await env.namespace('apply-conflict');
      const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: ${ns}}\ndata: {k: ${v}}\n`;
      const made = await env.kubectl([...setUp, '-n', ns], { stdin: cm('a') });
      assert.equal(made.code, 0, made.err);
      const file = manifest(cm('b'));

      const k = await env.kdyn(['apply', '-f', file]);
      assert.equal(k.code, 1);
      assert.equal(k.out, '');
      const message = `Apply failed with 1 conflict: ${conflict}`;
      assert.equal(k.err, `Error from server (Conflict): error when applying configmap/shared from "${file}" document 1: ${message} (${hint})\n1 object: 0 succeeded, 1 failed\n`);
      const c = await env.kubectl(['apply', '--server-side', '-f', file]);
      assert.equal(c.code, k.code);
      assert.equal(kubectlMessage(c), message);

      const forced = await env.kdyn(['apply', '-f', file, '--force-conflicts']);
      assert.equal(forced.code, 0, forced.err);
      assert.equal(forced.out, 'configmap/shared serverside-applied\n');
      const { obj } = await get(`/api/v1/namespaces/${ns}/configmaps/shared`);
      assert.equal(obj.data.k, 'b');
      const kdynFields = (obj.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: object }>).find((m) => m.manager === 'kdyn');
      assert.deepEqual(kdynFields && { operation: kdynFields.operation, fields: kdynFields.fieldsV1 }, { operation: 'Apply', fields: { 'f:data': { 'f:k': {} } } });
    });
  }

  test('--dry-run=server: kubectl\'s output, the server validates, nothing is written', async (t) => {
    const ns = await env.namespace('apply-dry');
    const file = manifest(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry, namespace: ${ns}}\ndata: {k: v}\n`);
    const k = await env.kdyn(['apply', '-f', file, '--dry-run=server']);
    assert.equal(k.code, 0, k.err);
    assert.equal(k.out, 'configmap/dry serverside-applied (server dry run)\n');
    assert.equal((await get(`/api/v1/namespaces/${ns}/configmaps/dry`)).status, 404);
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const c = await env.kubectl(['apply', '--server-side', '--dry-run=server', '-f', file]);
    assert.equal(c.code, 0, c.err);
    assert.equal(k.out, c.out);
  });

  describe('invalid fields: the real server\'s answers, as kubectl reports them', () => {
    let ns: string;
    before(async () => {
      ns = await env.namespace('apply-invalid');
      const k = await env.kdyn(['apply', '-f', manifest(crdAndInstance('valid.kdyn.dev', 'Gizmo', ns))]);
      assert.equal(k.code, 0, k.err);
    });

    // Server-side apply builds a typed patch from the CRD's schema first: an undeclared field or a
    // wrong type is a 500 (a Status without a reason) whatever fieldValidation says. Strict, Warn
    // and Ignore only matter to create and update. A value the schema forbids is a 422.
    // kubectl rewords a 422 from the Status details ("The Gizmo "bad" is invalid: ..."); kdyn keeps the
    // server's message ("Gizmo.valid.kdyn.dev "bad" is invalid: ..."). The 500s are printed alike.
    const asKubectlWords = (m: string) => m.replace(/^(\w+)\.\S+ /, 'The $1 ');
    const cases: Array<[string, string, string[], RegExp, (m: string) => string]> = [
      ['an undeclared field (Strict, the default)', '{size: 2, bogus: 1}', [], /^failed to create typed patch object \(apply-invalid-\d+\/bad; valid\.kdyn\.dev\/v1, Kind=Gizmo\): \.spec\.bogus: field not declared in schema$/, (m) => m],
      ['an undeclared field, --validate=warn', '{size: 2, bogus: 1}', ['--validate=warn'], /: \.spec\.bogus: field not declared in schema$/, (m) => m],
      ['an undeclared field, --validate=ignore', '{size: 2, bogus: 1}', ['--validate=ignore'], /: \.spec\.bogus: field not declared in schema$/, (m) => m],
      ['a wrong type', '{size: big}', [], /: \.spec\.size: expected numeric \(int or float\), got string$/, (m) => m],
      ['a value over the schema\'s maximum', '{size: 11}', [], /^Gizmo\.valid\.kdyn\.dev "bad" is invalid: spec\.size: Invalid value: 11: spec\.size in body should be less than or equal to 10$/, asKubectlWords],
    ];
    for (const [what, spec, flags, message, kubectlWording] of cases) {
      test(`${what}: exit 1, the server's message`, async (t) => {
        const file = manifest(`apiVersion: valid.kdyn.dev/v1\nkind: Gizmo\nmetadata: {name: bad, namespace: ${ns}}\nspec: ${spec}\n`);
        const k = await env.kdyn(['apply', '-f', file, ...flags]);
        assert.equal(k.code, 1);
        const [line, summary] = k.err.split('\n');
        // A Status without a reason (the 500s) prints no reason, as kubectl: `Error from server: ...`.
        const prefix = /^Error from server( \([A-Za-z]+\))?: error when applying gizmo\.valid\.kdyn\.dev\/bad from "m\d+\.yaml" document 1: /;
        assert.match(line!, prefix);
        assert.match(line!.replace(prefix, ''), message);
        assert.equal(summary, '1 object: 0 succeeded, 1 failed');
        assert.equal((await get(`/apis/valid.kdyn.dev/v1/namespaces/${ns}/gizmos/bad`)).status, 404);
        if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
        const c = await env.kubectl(['apply', '--server-side', '-f', file, ...flags]);
        assert.equal(c.code, k.code);
        assert.equal(kubectlMessage(c), kubectlWording(line!.replace(prefix, '')));
        // Where kubectl prints `Error from server`, the reason is shown by both or by neither (a 422 is reworded by kubectl: see above).
        if (c.err.startsWith('Error from server')) assert.equal(/^Error from server \(/.test(line!), /^Error from server \(/.test(c.err), c.err);
      });
    }
  });
});
