/**
 * ApplySets (`apply --prune --applyset`, KEP-3659) on a real kube-apiserver, next to kubectl v1.32
 * with KUBECTL_APPLYSET=true: kdyn's parent equals kubectl's (but tooling), the prune (dry run, then
 * real) deletes what the input dropped, kubectl refuses kdyn's set and kdyn refuses kubectl's until
 * it takes it over (kubectl's sets only: another tool's stays refused), `-o json|yaml` print the
 * pruned objects as kubectl prints them, and a failed apply prunes nothing.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';
import { applySetId } from '../../src/applyset/spec.js';

describe('ApplySets on a real kube-apiserver, next to KUBECTL_APPLYSET=true kubectl', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
  });
  after(() => env?.stop());

  let files = 0;
  function manifest(text: string): string {
    const name = `as${++files}.yaml`;
    writeFileSync(join(env.dir, name), text);
    return name;
  }
  const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {k: v}\n`;
  const deploy = (name: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec:\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;
  const kubectl = (args: string[]) => env.kubectl(args, { env: { KUBECTL_APPLYSET: 'true' } });
  async function parent(ns: string, name: string): Promise<{ labels: Record<string, string>; annotations: Record<string, string> }> {
    const res = await env.cluster.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
    assert.equal(res.status, 200, res.body);
    const o = JSON.parse(res.body) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
    return o.metadata;
  }
  const exists = async (path: string) => (await env.cluster.request('GET', path)).status === 200;
  const applysetOnly = (m: { labels: Record<string, string>; annotations: Record<string, string> }) =>
    Object.fromEntries(Object.entries(m.annotations).filter(([k]) => k.startsWith('applyset.kubernetes.io/') && k !== 'applyset.kubernetes.io/tooling'));

  test("kdyn's set: the parent kubectl would write (but tooling); prune dry run, then prune; kubectl refuses the set", async (t) => {
    const ns = await env.namespace('as-kdyn');
    const all = manifest(cm('a') + '---\n' + cm('b') + '---\n' + deploy('d'));
    const one = manifest(cm('a'));
    const k = await env.kdyn(['apply', '-n', ns, '-f', all, '--prune', '--applyset=configmap/app']);
    assert.equal(k.code, 0, k.err);
    const mine = await parent(ns, 'app');
    assert.equal(mine.labels['applyset.kubernetes.io/id'], applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' }));
    assert.deepEqual(applysetOnly(mine), { 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap,Deployment.apps', 'applyset.kubernetes.io/additional-namespaces': '' });
    if (HAS_KUBECTL) {
      const kns = await env.namespace('as-kubectl');
      const c = await kubectl(['apply', '--server-side', '-n', kns, '-f', all, '--prune', '--applyset=configmap/app']);
      assert.equal(c.code, 0, c.err);
      const theirs = await parent(kns, 'app');
      assert.deepEqual(applysetOnly(theirs), applysetOnly(mine));
      assert.equal(theirs.labels['applyset.kubernetes.io/id'], applySetId({ name: 'app', namespace: kns, kind: 'ConfigMap', group: '' }));
    } else t.diagnostic(NO_KUBECTL);

    const dry = await env.kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--dry-run=server']);
    assert.equal(dry.code, 0, dry.err);
    assert.equal(dry.out, 'configmap/a unchanged (server dry run)\nconfigmap/b pruned (server dry run)\ndeployment.apps/d pruned (server dry run)\n');
    assert.ok(await exists(`/api/v1/namespaces/${ns}/configmaps/b`), 'a dry run deletes nothing');
    if (HAS_KUBECTL) {
      const c = await kubectl(['apply', '--server-side', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
      assert.equal(c.code, 1);
      assert.match(c.err, /already exists and is managed by tooling "kdyn" instead of "kubectl"/);
    }
    const r = await env.kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'configmap/a unchanged\nconfigmap/b pruned\ndeployment.apps/d pruned\n');
    assert.ok(!(await exists(`/api/v1/namespaces/${ns}/configmaps/b`)));
    assert.equal((await parent(ns, 'app')).annotations['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
  });

  test("kubectl's set: kdyn refuses it, then takes it over explicitly and prunes what kubectl applied", async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const ns = await env.namespace('as-takeover');
    const all = manifest(cm('a') + '---\n' + cm('b'));
    const one = manifest(cm('a'));
    assert.equal((await kubectl(['apply', '--server-side', '-n', ns, '-f', all, '--prune', '--applyset=configmap/app'])).code, 0);
    const refused = await env.kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /^error: ApplySet parent object "configmaps\.\/app" already exists and is managed by tooling "kubectl" instead of "kdyn"/);
    assert.ok(await exists(`/api/v1/namespaces/${ns}/configmaps/b`));
    const take = await env.kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--applyset-takeover']);
    assert.equal(take.code, 0, take.err);
    assert.match(take.out, /^configmap\/b pruned$/m);
    assert.match((await parent(ns, 'app')).annotations['applyset.kubernetes.io/tooling']!, /^kdyn\//);
  });

  test("-o json|yaml: the pruned objects after the applied ones, as they were before their deletion: kubectl's bytes (server dry run, then for real)", async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const [mine, theirs] = [await env.namespace('as-out-kd'), await env.namespace('as-out-kc')];
    const all = manifest(cm('a') + '---\n' + cm('b') + '---\n' + cm('c'));
    assert.equal((await env.kdyn(['apply', '-n', mine, '-f', all, '--prune', '--applyset=configmap/app'])).code, 0);
    assert.equal((await kubectl(['apply', '--server-side', '-n', theirs, '-f', all, '--prune', '--applyset=configmap/app'])).code, 0);
    // What differs between the twin sets: namespace, ID, uid, resourceVersion, creationTimestamp.
    const normal = (out: string, ns: string) =>
      out
        .replaceAll(applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' }), 'ID')
        .replaceAll(ns, 'NS')
        .replace(/("uid": |uid: )"?[0-9a-f-]{36}"?/g, '$1UID')
        .replace(/("resourceVersion": |resourceVersion: )"\d+"/g, '$1"RV"')
        .replace(/("creationTimestamp": |creationTimestamp: )"[^"]+"/g, '$1"TS"');
    const twice = async (input: string, extra: string[]) => {
      const k = await env.kdyn(['apply', '-n', mine, '-f', input, '--prune', '--applyset=configmap/app', ...extra]);
      const c = await kubectl(['apply', '--server-side', '-n', theirs, '-f', input, '--prune', '--applyset=configmap/app', ...extra]);
      assert.equal(k.code, 0, k.err);
      assert.equal(c.code, 0, c.err);
      assert.equal(normal(k.out, mine), normal(c.out, theirs), extra.join(' '));
      return k.out;
    };
    const json = await twice(manifest(cm('a') + '---\n' + cm('z')), ['--dry-run=server', '-o', 'json']);
    assert.match(json, /^\{\n {4}"kind": "List",\n[^]*\n\}\n\{\n[^]*"name": "b"[^]*\n\}\n\{\n[^]*"name": "c"/, 'the List of a and z, then b and c');
    assert.doesNotMatch(json, /managedFields/);
    const yaml = await twice(manifest(cm('a')), ['-o', 'yaml']);
    assert.match(yaml, /\n {2}name: b\n[^]*\n---\n[^]*\n {2}name: c\n/);
    assert.ok(!(await exists(`/api/v1/namespaces/${mine}/configmaps/b`)), 'pruned for real');
  });

  test("--applyset-takeover takes over kubectl's sets only: another tool's (helm/v3) is refused naming its tooling, nothing changed", async () => {
    const ns = await env.namespace('as-helm');
    const id = applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' });
    const made = await env.cluster.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'app', labels: { 'applyset.kubernetes.io/id': id }, annotations: { 'applyset.kubernetes.io/tooling': 'helm/v3', 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap' } },
    });
    assert.equal(made.status, 201, made.body);
    const r = await env.kdyn(['apply', '-n', ns, '-f', manifest(cm('a')), '--prune', '--applyset=configmap/app', '--applyset-takeover']);
    assert.deepEqual({ code: r.code, out: r.out, err: r.err }, { code: 1, out: '', err: 'error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "helm/v3": --applyset-takeover takes over only sets kubectl manages (tooling "kubectl/<version>")\n' });
    assert.equal((await parent(ns, 'app')).annotations['applyset.kubernetes.io/tooling'], 'helm/v3');
    assert.ok(!(await exists(`/api/v1/namespaces/${ns}/configmaps/a`)), 'nothing applied');
  });

  test('a failed apply prunes nothing (an invalid object the real server refuses)', async () => {
    const ns = await env.namespace('as-fail');
    assert.equal((await env.kdyn(['apply', '-n', ns, '-f', manifest(cm('a') + '---\n' + cm('b')), '--prune', '--applyset=configmap/app'])).code, 0);
    // An invalid name: the real server answers 422.
    const bad = manifest(cm('a') + '---\n' + cm('Not_Valid'));
    const r = await env.kdyn(['apply', '-n', ns, '-f', bad, '--prune', '--applyset=configmap/app']);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.out, /pruned/);
    assert.ok(await exists(`/api/v1/namespaces/${ns}/configmaps/b`), 'b is still there');
  });
});
