/**
 * `kdyn diff` on a real kube-apiserver v1.32, next to `kubectl diff --server-side --field-manager=kdyn`:
 * changed, unchanged and new objects, Secret masking (the real server turns stringData into data),
 * KUBECTL_EXTERNAL_DIFF, a conflict, a Deployment diffed again without a dry run (its managedFields
 * prove it unchanged) and then changed; a CRD and its instances in one input (kubectl fails, kdyn shows
 * them created and checks the instance against the input's schema); a fleet of two contexts and one
 * that is down.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { freePort } from '../support/fleet-env.js';
import { normalizeDiff } from '../support/diff-output.js';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv, type Run } from './real-helpers.js';

describe('diff on a real kube-apiserver, next to kubectl diff --server-side', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let tmp: string;
  before(async () => {
    env = await startRealEnv();
    tmp = join(env.dir, 'tmp');
    mkdirSync(tmp);
  });
  after(() => env?.stop());

  let files = 0;
  const manifest = (text: string) => {
    const name = `d${++files}.yaml`;
    writeFileSync(join(env.dir, name), text);
    return name;
  };
  const opts = (extra: Record<string, string> = {}) => ({ env: { TMPDIR: tmp, ...extra } });

  /** Both tools on the same input; the same normalized output and exit code. */
  async function same(t: { diagnostic(msg: string): void }, args: string[], extra?: Record<string, string>): Promise<Run> {
    const mine = await env.kdyn(['diff', ...args], opts(extra));
    if (!HAS_KUBECTL) {
      t.diagnostic(NO_KUBECTL);
      return mine;
    }
    const theirs = await env.kubectl(['diff', '--server-side', '--field-manager=kdyn', ...args], opts(extra));
    assert.equal(normalizeDiff(mine.out), normalizeDiff(theirs.out));
    assert.equal(normalizeDiff(mine.err), normalizeDiff(theirs.err));
    assert.equal(mine.code, theirs.code, `${mine.err}\n---\n${theirs.err}`);
    return mine;
  }

  const cm = (ns: string, name: string, data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\ndata: {${data}}\n`;

  test('changed, unchanged and new objects: kubectl\'s bytes and exit codes', async (t) => {
    const ns = await env.namespace('diff');
    const base = manifest(`${cm(ns, 'same', 'a: "1"')}---\n${cm(ns, 'changed', 'a: "1", b: x')}`);
    assert.equal((await env.kdyn(['apply', '-f', base])).code, 0);
    const r = await same(t, ['-f', manifest(`${cm(ns, 'same', 'a: "1"')}---\n${cm(ns, 'changed', 'a: "2"')}---\n${cm(ns, 'new', 'k: v')}`)]);
    assert.equal(r.code, 1, r.err);
    assert.match(normalizeDiff(r.out), /^-  a: "1"\n-  b: x\n\+  a: "2"$/m);
    assert.match(normalizeDiff(r.out), new RegExp(`^diff -u -N \\S+/LIVE-N/v1\\.ConfigMap\\.${ns}\\.new `, 'm'));
    assert.doesNotMatch(r.out, /managedFields|\.same /);
    assert.deepEqual(readdirSync(tmp), []);
    const none = await same(t, ['-f', base]);
    assert.deepEqual([none.code, none.out], [0, '']);
  });

  test('Secrets: stringData becomes masked data; (before)/(after) where a value changes', async (t) => {
    const ns = await env.namespace('diff-secret');
    const secret = (data: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ${ns}}\nstringData: {${data}}\n`;
    assert.equal((await env.kdyn(['apply', '-f', manifest(secret('keep: same, change: old'))])).code, 0);
    const r = await same(t, ['-f', manifest(secret('keep: same, change: new, add: added'))]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^-  change: '\*\*\* \(before\)'\n\+  add: '\*\*\*'\n\+  change: '\*\*\* \(after\)'\n   keep: '\*\*\*'$/m);
    for (const v of ['same', 'old', 'new', 'added']) assert.ok(!r.out.includes(Buffer.from(v).toString('base64')), v);
  });

  test('KUBECTL_EXTERNAL_DIFF and a conflict, as kubectl', async (t) => {
    const ns = await env.namespace('diff-ext');
    assert.equal((await env.kdyn(['apply', '-f', manifest(cm(ns, 'owned', 'k: theirs')), '--field-manager', 'other'])).code, 0);
    const p = manifest(cm(ns, 'owned', 'k: mine'));
    const brief = await same(t, ['-f', p, '--force-conflicts'], { KUBECTL_EXTERNAL_DIFF: 'diff -r --brief' });
    assert.equal(brief.code, 1);
    assert.match(normalizeDiff(brief.out), /^Files \S+\/LIVE-N\/\S+ and \S+\/MERGED-N\/\S+ differ\n$/);
    const conflict = await same(t, ['-f', p]);
    assert.equal(conflict.code, 2);
    assert.match(conflict.err, /Error from server \(Conflict\): Apply failed with 1 conflict: conflict with "other"/);
  });

  test('a Deployment applied by kdyn: by default the same input sends its dry run as kubectl does; with --skip-unchanged none (its managedFields prove it), a change does; kubectl\'s bytes both times', async (t) => {
    const ns = await env.namespace('diff-deploy');
    const deployment = (image: string, env: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: ${image}
        args: [serve, --port=80]
        ports: [{containerPort: 80}]
        env: [{name: MODE, value: ${env}}]
`;
    const base = manifest(deployment('nginx:1.27', 'a'));
    assert.equal((await env.kdyn(['apply', '-f', base])).code, 0);
    const again = await same(t, ['-f', base]);
    assert.deepEqual([again.code, again.out], [0, '']);
    // The methods sent, sorted: kdyn sends the live read and the dry-run apply at once, and -v=6 logs
    // each when its answer arrives, in either order.
    const requests = async (p: string, ...more: string[]) => (await env.kdyn(['diff', '-f', p, '-v=6', ...more], opts())).err.split('\n').filter((l) => / (PATCH|GET) https/.test(l)).map((l) => / (PATCH|GET) /.exec(l)![1]).sort();
    assert.deepEqual(await requests(base), ['GET', 'PATCH'], 'by default the dry-run apply is sent, as kubectl sends it');
    assert.deepEqual(await requests(base, '--skip-unchanged'), ['GET'], '--skip-unchanged: the live object read, no dry-run apply');
    const changed = manifest(deployment('nginx:1.27', 'b'));
    const r = await same(t, ['-f', changed]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^-          value: a\n\+          value: b$/m);
    assert.deepEqual(await requests(changed), ['GET', 'PATCH']);
  });

  test('a CRD and its instances: kubectl fails; kdyn shows them created, the instance checked against the input\'s schema', async () => {
    const ns = await env.namespace('diff-crd');
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: dials.diff.kdyn.dev}
spec:
  group: diff.kdyn.dev
  scope: Namespaced
  names: {plural: dials, singular: dial, kind: Dial}
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
            required: [level]
            properties:
              level: {type: integer, maximum: 10}
              mode: {type: string, enum: [auto, manual], default: auto}
`;
    const p = manifest(`${crd}---\napiVersion: diff.kdyn.dev/v1\nkind: Dial\nmetadata: {name: d1, namespace: ${ns}}\nspec: {level: 3}\n`);
    const r = await env.kdyn(['diff', '-f', p], opts());
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^diff -u -N \S+\/LIVE-\d+\/apiextensions\.k8s\.io\.v1\.CustomResourceDefinition\.\.dials\.diff\.kdyn\.dev /m);
    assert.ok(r.out.endsWith('+spec:\n+  level: 3\n+  mode: auto\n'), r.out);
    assert.equal((await env.cluster.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/dials.diff.kdyn.dev')).status, 404, 'nothing created');
    if (HAS_KUBECTL) {
      const theirs = await env.kubectl(['diff', '--server-side', '-f', p], opts());
      assert.equal(theirs.code, 2);
      assert.match(theirs.err, /no matches for kind "Dial" in version "diff\.kdyn\.dev\/v1"/);
    }
    const bad = manifest(`${crd}---\napiVersion: diff.kdyn.dev/v1\nkind: Dial\nmetadata: {name: d2, namespace: ${ns}}\nspec: {level: 11, mode: off}\n`);
    const refused = await env.kdyn(['diff', '-f', bad], opts());
    assert.equal(refused.code, 2);
    assert.equal(refused.out, '');
    assert.equal(refused.err, `error: Dial.diff.kdyn.dev "d2" from "${bad}" document 2 is invalid against the schema of diff.kdyn.dev/v1 in CustomResourceDefinition "dials.diff.kdyn.dev" of the input: [spec.level: Invalid value: 11: spec.level in body should be less than or equal to 10, spec.mode: Unsupported value: "off": supported values: "auto", "manual"]\n`);
  });

  test('objects in a namespace the input creates: kubectl fails; kdyn shows them created', async () => {
    const p = manifest(`apiVersion: v1\nkind: Namespace\nmetadata: {name: diff-brand-new}\n---\n${cm('diff-brand-new', 'inside', 'a: b')}`);
    const r = await env.kdyn(['diff', '-f', p], opts());
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /^\+\+\+ \S+\/MERGED-\d+\/v1\.ConfigMap\.diff-brand-new\.inside\t.*\n@@ -0,0 \+1,7 @@\n\+apiVersion: v1\n\+data:\n\+  a: b\n/m);
    assert.match(r.out, /^\+  phase: Active$/m, 'the Namespace: the server\'s dry-run create');
    if (HAS_KUBECTL) {
      const theirs = await env.kubectl(['diff', '--server-side', '-f', p], opts());
      assert.equal(theirs.code, 2);
      assert.match(theirs.err, /namespaces "diff-brand-new" not found/);
    }
  });

  test('a fleet: a section per context, the one that is down one error line, exit 2', async () => {
    const ns = await env.namespace('diff-fleet');
    const admin = load(readFileSync(env.cluster.kubeconfigs.token, 'utf8')) as { clusters: Array<{ cluster: Record<string, string> }>; users: Array<{ user: Record<string, string> }> };
    const down = `https://127.0.0.1:${await freePort()}`;
    const names = ['east', 'gone', 'west'];
    const kubeconfig = join(env.dir, 'fleet-kubeconfig');
    writeFileSync(kubeconfig, dump({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'east', preferences: {},
      clusters: names.map((name) => ({ name, cluster: { ...admin.clusters[0]!.cluster, ...(name === 'gone' ? { server: down } : {}) } })),
      users: names.map((name) => ({ name, user: admin.users[0]!.user })),
      contexts: names.map((name) => ({ name, context: { cluster: name, user: name } })),
    }));
    const p = manifest(cm(ns, 'fleet', 'a: "1"'));
    const alone = await env.kdyn(['diff', '-f', p, '--context', 'east'], opts({ KUBECONFIG: kubeconfig }));
    assert.equal(alone.code, 1, alone.err);
    const r = await env.kdyn(['diff', '-f', p, '--all-contexts'], opts({ KUBECONFIG: kubeconfig }));
    assert.equal(r.code, 2);
    const sections = normalizeDiff(r.out).split(/^(?=# context )/m);
    assert.deepEqual(sections, [`# context "east"\n${normalizeDiff(alone.out)}`, `# context "west"\n${normalizeDiff(alone.out)}`]);
    assert.match(r.err, /^error: context "gone": The connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?\n$/);
  });
});
