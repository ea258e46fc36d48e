/**
 * `kdyn apply --prune --applyset=...` (KEP-3659) end to end against the local API server, next to
 * kubectl v1.32 with KUBECTL_APPLYSET=true as the oracle: the parent kdyn writes carries kubectl's
 * labels and annotations (but tooling), kubectl refuses to mutate kdyn's set (naming kdyn), kdyn
 * refuses kubectl's and takes it over only when asked (with a dry run first), the prune dry runs,
 * a failed apply prunes nothing, the set's scope (recorded kinds and namespaces) bounds the prune,
 * a member with a foreign owner is a conflict, and a pruned CRD invalidates the shared discovery
 * cache. kdyn runs in process (the server's request log shows what one run sent).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, type Run } from '../support/cli.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import { configMap, kdynIn, manifestFile } from './apply-helpers.js';
import { applySetId } from '../../src/applyset/spec.js';
import { startFleetEnv } from '../support/fleet-env.js';

let env: ServerEnv;
let server: LocalApiServer;
let dir: string;
before(async () => {
  // TLS: kubectl sends its bearer token only over https.
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-applyset-');
  ({ server, dir } = env);
});
after(() => env.stop());
beforeEach(() => server.clearLog());

const kdyn = (args: string[]) => kdynIn(env)(args);
const kubectl = (args: string[]): Promise<Run> =>
  runCommand('kubectl', args, { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: env.kubeconfig, KUBECTL_APPLYSET: 'true' } });
const file = (name: string, docs: unknown[]) => manifestFile(dir, name, docs);
const writes = () => server.requestLog.filter((r) => r.method !== 'GET');
const cmIn = (ns: string, name: string) => server.store.get('', 'configmaps', ns, name);
const deployment = (name: string, namespace?: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const parentOf = (ns: string, name: string) => cmIn(ns, name)!.metadata;
const applysetMeta = (m: { labels?: Record<string, string>; annotations?: Record<string, string> }) => ({
  labels: m.labels,
  annotations: Object.fromEntries(Object.entries(m.annotations ?? {}).filter(([k]) => k !== 'applyset.kubernetes.io/tooling')),
});

/** A fresh namespace per test (the server has no namespace lifecycle of its own). */
let nsCount = 0;
async function namespace(prefix: string): Promise<string> {
  const ns = `${prefix}-${++nsCount}`;
  const p = file(`ns-${ns}.yaml`, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }]);
  assert.equal((await kdyn(['apply', '-f', p])).code, 0);
  return ns;
}

test("kdyn's parent: the same labels and annotations as kubectl's for the same input (but tooling); members labelled part-of", async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const [a, b] = [await namespace('eq-a'), await namespace('eq-b')];
  const input = (tag: string) => file(`eq-${tag}.yaml`, [configMap(`${tag}-1`), configMap(`${tag}-2`), deployment(`${tag}-d`)]);
  const k = await kdyn(['apply', '-n', a, '-f', input('kd'), '--prune', '--applyset=configmap/set']);
  assert.equal(k.code, 0, k.err);
  assert.equal(k.out, 'configmap/kd-1 serverside-applied\nconfigmap/kd-2 serverside-applied\ndeployment.apps/kd-d serverside-applied\n');
  const c = await kubectl(['apply', '--server-side', '-n', b, '-f', input('kc'), '--prune', '--applyset=configmap/set']);
  assert.equal(c.code, 0, c.err);
  const mine = parentOf(a, 'set');
  const theirs = parentOf(b, 'set');
  assert.equal(mine.labels!['applyset.kubernetes.io/id'], applySetId({ name: 'set', namespace: a, kind: 'ConfigMap', group: '' }));
  assert.equal(theirs.labels!['applyset.kubernetes.io/id'], applySetId({ name: 'set', namespace: b, kind: 'ConfigMap', group: '' }), 'kubectl computes the same ID');
  assert.deepEqual(applysetMeta(mine), { ...applysetMeta(theirs), labels: mine.labels });
  assert.deepEqual(applysetMeta(mine).annotations, { 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap,Deployment.apps', 'applyset.kubernetes.io/additional-namespaces': '' });
  assert.match(mine.annotations!['applyset.kubernetes.io/tooling']!, /^kdyn\/\d+\.\d+\.\d+/);
  assert.match(theirs.annotations!['applyset.kubernetes.io/tooling']!, /^kubectl\/v1\./);
  assert.equal(cmIn(a, 'kd-2')!.metadata.labels!['applyset.kubernetes.io/part-of'], mine.labels!['applyset.kubernetes.io/id']);
  assert.equal(cmIn(b, 'kc-2')!.metadata.labels!['applyset.kubernetes.io/part-of'], theirs.labels!['applyset.kubernetes.io/id']);
});

test('kubectl recognises and prunes nothing of a kdyn set: it refuses to mutate it, naming kdyn; kdyn prunes it', async (t) => {
  const ns = await namespace('kd');
  const all = file('kd-all.yaml', [configMap('a'), configMap('b'), deployment('d')]);
  const one = file('kd-one.yaml', [configMap('a')]);
  assert.equal((await kdyn(['apply', '-n', ns, '-f', all, '--prune', '--applyset=configmap/app'])).code, 0);
  if (hasKubectl()) {
    server.clearLog();
    const c = await kubectl(['apply', '--server-side', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
    assert.equal(c.code, 1);
    assert.equal(c.err, 'error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "kdyn" instead of "kubectl"\n');
    assert.deepEqual(writes(), [], 'kubectl wrote nothing');
  } else t.diagnostic('kubectl not on PATH: its refusal is not checked');
  const k = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
  assert.equal(k.code, 0, k.err);
  assert.equal(k.out, 'configmap/a unchanged\nconfigmap/b pruned\ndeployment.apps/d pruned\n');
  assert.equal(cmIn(ns, 'b'), undefined);
  assert.equal(server.store.get('apps', 'deployments', ns, 'd'), undefined);
  assert.equal(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap', 'the parent records the new set');
});

test("kdyn refuses kubectl's set in one line and writes nothing; --applyset-takeover --dry-run=server lists what would change; the take-over leaves no object behind", async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const ns = await namespace('kc');
  const all = file('kc-all.yaml', [configMap('a'), configMap('b'), deployment('d')]);
  const one = file('kc-one.yaml', [configMap('a'), configMap('c')]);
  const c = await kubectl(['apply', '--server-side', '-n', ns, '-f', all, '--prune', '--applyset=configmap/app']);
  assert.equal(c.code, 0, c.err);
  const tooling = parentOf(ns, 'app').annotations!['applyset.kubernetes.io/tooling']!;
  server.clearLog();
  const refused = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
  assert.equal(refused.code, 1);
  assert.equal(refused.out, '');
  assert.equal(refused.err, 'error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "kubectl" instead of "kdyn" (to move it to kdyn, apply again with --applyset-takeover; --dry-run=server shows what would change)\n');
  assert.deepEqual(writes(), []);

  const dry = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--applyset-takeover', '--dry-run=server']);
  assert.equal(dry.code, 0, dry.err);
  assert.equal(dry.out, 'configmap/a unchanged (server dry run)\nconfigmap/c serverside-applied (server dry run)\nconfigmap/b pruned (server dry run)\ndeployment.apps/d pruned (server dry run)\n');
  assert.match(dry.err, new RegExp(`^ApplySet configmaps\\./app taken over from tooling "${tooling.replace(/\./g, '\\.')}" \\(server dry run\\)$`, 'm'));
  assert.ok(writes().length > 0 && writes().every((w) => new URLSearchParams(w.query).get('dryRun') === 'All'), 'every write of the dry run is dryRun=All');
  assert.equal(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/tooling'], tooling, 'nothing changed');
  assert.ok(cmIn(ns, 'b'));

  const take = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--applyset-takeover']);
  assert.equal(take.code, 0, take.err);
  assert.equal(take.out, 'configmap/a serverside-applied\nconfigmap/c serverside-applied\nconfigmap/b pruned\ndeployment.apps/d pruned\n');
  assert.match(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/tooling']!, /^kdyn\//);
  // From now on the set is kdyn's: kubectl refuses it, kdyn needs no flag.
  assert.equal((await kubectl(['apply', '--server-side', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app'])).code, 1);
  const again = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.out, 'configmap/a unchanged\nconfigmap/c unchanged\n');
});

test("--applyset-takeover takes over kubectl's sets only: another tool's (helm/v3) or one without tooling is refused in one line naming it, dry run or not, nothing written; kdyn applyset still lists it", async (t) => {
  const ns = await namespace('helm');
  const id = applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' });
  const annotations = { 'applyset.kubernetes.io/tooling': 'helm/v3', 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap' };
  server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: ns, labels: { 'applyset.kubernetes.io/id': id }, annotations } } as never);
  server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old', namespace: ns, labels: { 'applyset.kubernetes.io/part-of': id } } } as never);
  const one = file('helm-one.yaml', [configMap('a')]);
  const onlyKubectl = '--applyset-takeover takes over only sets kubectl manages (tooling "kubectl/<version>")';
  server.clearLog();
  for (const dry of [[], ['--dry-run=server'], ['--dry-run=client']]) {
    const r = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--applyset-takeover', ...dry]);
    assert.deepEqual(r, { code: 1, out: '', err: `error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "helm/v3": ${onlyKubectl}\n` }, dry.join(' '));
  }
  const refused = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
  assert.deepEqual(refused, { code: 1, out: '', err: 'error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "helm" instead of "kdyn"\n' }, 'no take-over hint: there is none to give');
  if (hasKubectl()) {
    const c = await kubectl(['apply', '--server-side', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app']);
    assert.equal(c.err, 'error: ApplySet parent object "configmaps./app" already exists and is managed by tooling "helm" instead of "kubectl"\n', "kubectl's words, as kdyn's");
  } else t.diagnostic('kubectl not on PATH: its refusal is not compared');
  assert.deepEqual(writes(), [], 'nothing written');
  assert.equal(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/tooling'], 'helm/v3');
  assert.ok(cmIn(ns, 'old') && !cmIn(ns, 'a'));
  const listed = await kdyn(['applyset', 'configmap/app', '-n', ns, '-o', 'name']);
  assert.deepEqual(listed, { code: 0, out: 'configmap/old\n', err: listed.err });
  // A parent without tooling: no tool's, so not kubectl's either.
  const bare = cmIn(ns, 'app')!;
  server.store.update('', 'configmaps', { ...bare, metadata: { ...bare.metadata, annotations: { 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap' } } });
  const none = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=configmap/app', '--applyset-takeover', '--dry-run=server']);
  assert.deepEqual(none, { code: 1, out: '', err: `error: ApplySet parent object "configmaps./app" already exists and is missing required annotation "applyset.kubernetes.io/tooling": ${onlyKubectl}\n` });
});

test("prune dry runs: kubectl's lines for what would go (server: `pruned (server dry run)`, client: `# ... pruned (dry run)`), nothing deleted", async (t) => {
  const ns = await namespace('dry');
  const all = file('dry-all.yaml', [configMap('a'), configMap('b'), deployment('d')]);
  const one = file('dry-one.yaml', [configMap('a')]);
  assert.equal((await kdyn(['apply', '-n', ns, '-f', all, '--prune', '--applyset=app'])).code, 0, 'a Secret parent (no RESOURCE/)');
  assert.ok(server.store.get('', 'secrets', ns, 'app'));
  const server1 = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=app', '--dry-run=server']);
  assert.equal(server1.code, 0, server1.err);
  const prunedLines = (out: string) => out.split('\n').filter((l) => /pruned/.test(l));
  assert.deepEqual(prunedLines(server1.out), ['configmap/b pruned (server dry run)', 'deployment.apps/d pruned (server dry run)']);
  const names = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=app', '--dry-run=server', '-o', 'name']);
  assert.equal(names.out, 'configmap/a\nconfigmap/b\ndeployment.apps/d\n', "-o name: kubectl's name lines, the pruned after the applied");
  server.clearLog();
  const client = await kdyn(['apply', '-n', ns, '-f', one, '--prune', '--applyset=app', '--dry-run=client']);
  assert.equal(client.code, 0, client.err);
  assert.deepEqual(prunedLines(client.out), ['# configmap/b pruned (dry run)', '# deployment.apps/d pruned (dry run)']);
  assert.match(client.out, /^    applyset\.kubernetes\.io\/part-of: applyset-/m, 'the requests carry the part-of label');
  assert.deepEqual(writes(), [], 'a client dry run writes nothing');
  if (hasKubectl()) {
    const kc = await kubectl(['apply', '--server-side', '-n', ns, '-f', one, '--prune', '--applyset=app', '--dry-run=server']);
    // kubectl refuses kdyn's set before its dry run: the same refusal as for a real run.
    assert.equal(kc.code, 1);
    assert.match(kc.err, /managed by tooling "kdyn" instead of "kubectl"/);
  }
  assert.ok(cmIn(ns, 'b') && server.store.get('apps', 'deployments', ns, 'd'), 'nothing deleted');
});

test('a failed apply prunes nothing, and the parent keeps the union of old and new kinds until a complete run', async () => {
  const ns = await namespace('fail');
  const all = file('fail-all.yaml', [configMap('a'), deployment('d')]);
  assert.equal((await kdyn(['apply', '-n', ns, '-f', all, '--prune', '--applyset=configmap/app'])).code, 0);
  const next = file('fail-next.yaml', [configMap('a'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }]);
  server.faults.failNext({ status: 403, method: 'PATCH', path: `/api/v1/namespaces/${ns}/secrets/s` });
  const r = await kdyn(['apply', '-n', ns, '-f', next, '--prune', '--applyset=configmap/app']);
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.out, /pruned/);
  assert.match(r.err, /^ApplySet configmaps\.\/app: 0 pruned \(apply failed: nothing pruned\)$/m);
  assert.ok(server.store.get('apps', 'deployments', ns, 'd'), 'the deployment is still there');
  assert.equal(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap,Deployment.apps,Secret', 'the union');
  server.faults.clear();
  const ok = await kdyn(['apply', '-n', ns, '-f', next, '--prune', '--applyset=configmap/app']);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^deployment\.apps\/d pruned$/m);
  assert.equal(parentOf(ns, 'app').annotations!['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap,Secret');
});

test("the prune stays in the set's scope: a part-of object in a namespace or of a kind the parent does not record is never deleted; a foreign owner is a conflict", async () => {
  const ns = await namespace('scope');
  const elsewhere = await namespace('scope-else');
  assert.equal((await kdyn(['apply', '-n', ns, '-f', file('scope-1.yaml', [configMap('a'), configMap('b')]), '--prune', '--applyset=configmap/app'])).code, 0);
  const id = applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' });
  // Labelled by hand as members, outside what the parent records: another namespace, another kind.
  const label = { 'applyset.kubernetes.io/part-of': id };
  server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stray', namespace: elsewhere, labels: label } } as never);
  server.store.create('', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'stray', namespace: ns, labels: label } } as never);
  server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: ns, labels: label, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u-1' }] } } as never);
  const r = await kdyn(['apply', '-n', ns, '-f', file('scope-2.yaml', [configMap('a')]), '--prune', '--applyset=configmap/app']);
  assert.equal(r.code, 1, 'a conflict is a failure');
  assert.equal(r.out, 'configmap/a unchanged\nconfigmap/b pruned\n');
  assert.match(r.err, /^error: not pruning configmap\/owned in namespace "scope-\d+": it is owned by ReplicaSet "web-1", outside the ApplySet/m);
  assert.ok(cmIn(elsewhere, 'stray'), 'another namespace: kept');
  assert.ok(server.store.get('', 'secrets', ns, 'stray'), 'an unrecorded kind: kept');
  assert.ok(cmIn(ns, 'owned'), 'the conflict: kept');
  assert.ok(!server.requestLog.some((e) => e.method === 'GET' && e.path.includes(`/namespaces/${elsewhere}/`)), 'never listed outside the set');
});

test('a pruned CRD invalidates the discovery cache kdyn shares with kubectl', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const ns = await namespace('crd');
  const crd = simpleCrd({ group: 'prune.kdyn.dev', plural: 'widgets', kind: 'Widget' });
  assert.equal((await kdyn(['apply', '-n', ns, '-f', file('crd-1.yaml', [configMap('a'), crd]), '--prune', '--applyset=configmap/app'])).code, 0);
  const shared = ['--cache-dir', join(dir, 'cache')];
  const before = await kubectl(['api-resources', '--api-group', 'prune.kdyn.dev', ...shared]);
  assert.match(before.out, /^widgets /m, 'kubectl has the CRD in the shared cache');
  const r = await kdyn(['apply', '-n', ns, '-f', file('crd-2.yaml', [configMap('a')]), '--prune', '--applyset=configmap/app']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.prune\.kdyn\.dev pruned$/m);
  const after = await kubectl(['api-resources', '--cached', '--api-group', 'prune.kdyn.dev', ...shared]);
  assert.doesNotMatch(after.out, /^widgets /m, 'the cache was invalidated: kubectl asked the server again');
});

test('bad flags: --applyset without --prune, --prune without --applyset, a namespaced parent without -n, a parent the server does not know', async () => {
  const p = file('flags.yaml', [configMap('a')]);
  assert.deepEqual(await kdyn(['apply', '-f', p, '--applyset=configmap/x']), { code: 1, out: '', err: 'error: --applyset requires --prune\n' });
  const noSet = await kdyn(['apply', '-f', p, '--prune']);
  assert.equal(noSet.code, 1);
  assert.match(noSet.err, /^error: --prune requires --applyset=/);
  assert.deepEqual(await kdyn(['apply', '-f', p, '--prune', '--applyset=configmap/x']), { code: 1, out: '', err: 'error: namespace is required to use namespace-scoped ApplySet\n' });
  const unknown = await kdyn(['apply', '-n', 'demo', '-f', p, '--prune', '--applyset=frobs/x']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /^error: invalid parent reference "frobs\/x": /);
  const crParent = await kdyn(['apply', '-n', 'demo', '-f', p, '--prune', '--applyset=rockets.demo.kdyn.dev/x']);
  assert.equal(crParent.err, 'error: resource "demo.kdyn.dev/v1, Resource=rockets" is not permitted as an ApplySet parent (CRD needs "applyset.kubernetes.io/is-parent-type" label)\n');
  assert.deepEqual(writes().filter((w) => w.path.includes('/configmaps')), [], 'nothing applied');
});

test('a fleet (--context a,b,down): the same set in each context, pruned per context; a context that is down is one error line', async () => {
  const fleet = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], prefix: 'kdyn-applyset-fleet-' });
  try {
    const run = (args: string[]) => kdynIn({ dir: fleet.dir, kubeconfig: fleet.kubeconfig })(args);
    const all = manifestFile(fleet.dir, 'all.yaml', [configMap('a'), configMap('b')]);
    const one = manifestFile(fleet.dir, 'one.yaml', [configMap('a')]);
    const first = await run(['apply', '-n', 'demo', '-f', all, '--prune', '--applyset=configmap/app', '--context', 'east,west,gone']);
    assert.equal(first.code, 1, 'the context that is down fails the run');
    assert.equal(first.out, 'east/configmap/a serverside-applied\neast/configmap/b serverside-applied\nwest/configmap/a serverside-applied\nwest/configmap/b serverside-applied\n');
    assert.equal(first.err.split('\n').filter((l) => l.startsWith('error: context "gone"')).length, 1, first.err);
    // A client dry run reads each context's set and writes nothing: the requests carry the part-of label, then what would go.
    const plan = await run(['apply', '-n', 'demo', '-f', one, '--prune', '--applyset=configmap/app', '--context', 'east,west', '--dry-run=client']);
    assert.equal(plan.code, 0, plan.err);
    assert.deepEqual(plan.out.split('\n').filter((l) => /pruned/.test(l)), ['# east/configmap/b pruned (dry run)', '# west/configmap/b pruned (dry run)']);
    assert.equal(plan.out.match(/^ {4}applyset\.kubernetes\.io\/part-of: applyset-/gm)?.length, 2, plan.out);
    for (const s of fleet.servers.values()) assert.ok(s.store.get('', 'configmaps', 'demo', 'b'), 'nothing pruned by a client dry run');
    // -o jsonl over a fleet: the pruned objects in their {context, object} records too.
    const lines = await run(['apply', '-n', 'demo', '-f', one, '--prune', '--applyset=configmap/app', '--context', 'east,west', '--dry-run=server', '-o', 'jsonl']);
    assert.equal(lines.code, 0, lines.err);
    const records = lines.out.trim().split('\n').map((l) => JSON.parse(l) as { context?: string; object?: { metadata?: { name?: string } } });
    assert.deepEqual(records.map((x) => `${x.context}/${x.object?.metadata?.name}`).sort(), ['east/a', 'east/b', 'west/a', 'west/b']);
    const r = await run(['apply', '-n', 'demo', '-f', one, '--prune', '--applyset=configmap/app', '--context', 'east,west']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'east/configmap/a unchanged\neast/configmap/b pruned\nwest/configmap/a unchanged\nwest/configmap/b pruned\n');
    assert.match(r.err, /^context "west": ApplySet configmaps\.\/app: 1 pruned$/m);
    for (const s of fleet.servers.values()) {
      assert.equal(s.store.get('', 'configmaps', 'demo', 'b'), undefined);
      assert.equal(s.store.get('', 'configmaps', 'demo', 'app')!.metadata.annotations!['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
    }
    // A context whose parent another tool owns: that context's one line; the other is applied.
    const west = fleet.servers.get('west')!;
    const parent = west.store.get('', 'configmaps', 'demo', 'app')!;
    west.store.update('', 'configmaps', { ...parent, metadata: { ...parent.metadata, annotations: { ...parent.metadata.annotations, 'applyset.kubernetes.io/tooling': 'kubectl/v1.32.5' } } });
    const refused = await run(['apply', '-n', 'demo', '-f', one, '--prune', '--applyset=configmap/app', '--context', 'east,west']);
    assert.equal(refused.code, 1);
    assert.equal(refused.out, 'east/configmap/a unchanged\n');
    assert.match(refused.err, /^error: context "west": ApplySet parent object "configmaps\.\/app" already exists and is managed by tooling "kubectl" instead of "kdyn"/m);
  } finally {
    await fleet.stop();
  }
});

test('kdyn applyset lists the members of any set (kubectl made this one): the same objects kubectl get -l part-of=ID finds', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const ns = await namespace('list');
  const c = await kubectl(['apply', '--server-side', '-n', ns, '-f', file('list.yaml', [deployment('d'), configMap('b'), configMap('a')]), '--prune', '--applyset=configmap/app']);
  assert.equal(c.code, 0, c.err);
  const id = applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' });
  const theirs = await kubectl(['get', 'configmaps,deployments.apps', '-n', ns, '-l', `applyset.kubernetes.io/part-of=${id}`, '-o', 'name']);
  server.clearLog();
  const names = await kdyn(['applyset', 'configmap/app', '-n', ns, '-o', 'name']);
  assert.equal(names.code, 0, names.err);
  assert.equal(names.out, theirs.out);
  const table = await kdyn(['applyset', 'configmap/app', '-n', ns]);
  const pad = 'NAMESPACE   '.length;
  assert.equal(table.out, ['NAMESPACE   NAME', ...['configmap/a', 'configmap/b', 'deployment.apps/d'].map((n) => ns.padEnd(pad) + n)].join('\n') + '\n');
  assert.match(table.err, new RegExp(`^ApplySet configmaps\\./app in namespace ${ns} \\(${id}\\), tooling kubectl/v1\\.32\\.\\S+: 3 members\\n$`));
  assert.deepEqual(await kdyn(['applyset', 'configmap/none', '-n', ns]), { code: 1, out: '', err: `error: ApplySet parent object "configmaps./none" not found in namespace "${ns}"\n` });
  assert.deepEqual(writes().filter((w) => w.path.includes(`/namespaces/${ns}/`)), [], 'listing writes nothing');
});

test('a cluster-scoped custom resource parent (its CRD labelled is-parent-type): members in several namespaces, recorded as kubectl records them', async (t) => {
  const crd = simpleCrd({ group: 'sets.kdyn.dev', plural: 'bundles', kind: 'Bundle', scope: 'Cluster' });
  (crd.metadata as { labels?: Record<string, string> }).labels = { 'applyset.kubernetes.io/is-parent-type': 'true' };
  assert.equal((await kdyn(['apply', '-f', file('bundle-crd.yaml', [crd])])).code, 0);
  // As kubectl requires of a custom resource parent: made beforehand with its ID, tooling and (empty) group-kinds.
  const bundle = (name: string, tooling: string) => ({
    apiVersion: 'sets.kdyn.dev/v1',
    kind: 'Bundle',
    metadata: {
      name,
      labels: { 'applyset.kubernetes.io/id': applySetId({ name, namespace: '', kind: 'Bundle', group: 'sets.kdyn.dev' }) },
      annotations: { 'applyset.kubernetes.io/tooling': tooling, 'applyset.kubernetes.io/contains-group-kinds': '' },
    },
  });
  assert.equal((await kdyn(['apply', '-f', file('bundles.yaml', [bundle('kd', 'kdyn/0'), bundle('kc', 'kubectl/v1.32.5')])])).code, 0);
  const [x, y] = [await namespace('cr-x'), await namespace('cr-y')];
  const input = (tag: string) => file(`cr-${tag}.yaml`, [configMap(`${tag}-1`, { k: 'v' }, y), configMap(`${tag}-2`, { k: 'v' }, x)]);
  const missing = await kdyn(['apply', '-f', input('kd'), '--prune', '--applyset=bundles.sets.kdyn.dev/none']);
  assert.deepEqual(missing, { code: 1, out: '', err: 'error: custom resource ApplySet parents cannot be created automatically\n' });
  const k = await kdyn(['apply', '-f', input('kd'), '--prune', '--applyset=bundles.sets.kdyn.dev/kd']);
  assert.equal(k.code, 0, k.err);
  const parent = (name: string) => server.store.get('sets.kdyn.dev', 'bundles', '', name)!.metadata;
  const mine = parent('kd');
  assert.equal(mine.labels!['applyset.kubernetes.io/id'], applySetId({ name: 'kd', namespace: '', kind: 'Bundle', group: 'sets.kdyn.dev' }));
  assert.deepEqual(applysetMeta(mine).annotations, { 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap', 'applyset.kubernetes.io/additional-namespaces': [x, y].sort().join(',') });
  if (hasKubectl()) {
    const c = await kubectl(['apply', '--server-side', '-f', input('kc'), '--prune', '--applyset=bundles.sets.kdyn.dev/kc']);
    assert.equal(c.code, 0, c.err);
    const theirs = parent('kc');
    assert.equal(theirs.labels!['applyset.kubernetes.io/id'], applySetId({ name: 'kc', namespace: '', kind: 'Bundle', group: 'sets.kdyn.dev' }), "kubectl's ID for a cluster-scoped custom resource parent");
    assert.deepEqual(applysetMeta(theirs).annotations, applysetMeta(mine).annotations);
  } else t.diagnostic('kubectl not on PATH: the comparison with kubectl did not run');
  // Dropping the member in y prunes it there: every recorded namespace is listed.
  const r = await kdyn(['apply', '-f', file('cr-kd-2.yaml', [configMap('kd-2', { k: 'v' }, x)]), '--prune', '--applyset=bundles.sets.kdyn.dev/kd']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'configmap/kd-2 unchanged\nconfigmap/kd-1 pruned\n');
  assert.equal(cmIn(y, 'kd-1'), undefined);
  assert.equal(applysetMeta(parent('kd')).annotations['applyset.kubernetes.io/additional-namespaces'], x);
});
