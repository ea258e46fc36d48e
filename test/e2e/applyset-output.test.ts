/**
 * What `kdyn apply --prune --applyset` prints for the pruned objects in the object formats, next to
 * kubectl v1.32 (KUBECTL_APPLYSET=true) as the oracle on the local API server: `-o json` and `-o
 * yaml` print the applied objects (one as itself, several as kubectl apply's List), then each pruned
 * object as it was before its deletion, one document each (YAML: `---` between the pruned ones, none
 * before the first, as kubectl); `-o name` the names; a client dry run the same pruned documents as
 * kubectl's client-side dry run; over a fleet each pruned object in its `{context, object}` record,
 * and a fleet of one prints what kubectl prints. kdyn's set and kubectl's are twins (the same
 * members in two namespaces, or the same namespace of two servers): the outputs are compared with
 * the values that differ between them (namespace, ID, uid, resourceVersion, creationTimestamp)
 * replaced.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, type Run } from '../support/cli.js';
import { configMap, kdynIn, manifestFile } from './apply-helpers.js';
import { applySetId } from '../../src/applyset/spec.js';
import { startFleetEnv } from '../support/fleet-env.js';

let env: ServerEnv;
let server: LocalApiServer;
let dir: string;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-applyset-output-');
  ({ server, dir } = env);
});
after(() => env.stop());

const kdyn = (args: string[]) => kdynIn(env)(args);
const kubectlWith = (kubeconfig: string, home: string) => (args: string[]): Promise<Run> =>
  runCommand('kubectl', args, { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig, KUBECTL_APPLYSET: 'true' } });
const kubectl = (args: string[]) => kubectlWith(env.kubeconfig, dir)(args);
const file = (name: string, docs: unknown[]) => manifestFile(dir, name, docs);
const writes = () => server.requestLog.filter((r) => r.method !== 'GET');
const idOf = (ns: string) => applySetId({ name: 'app', namespace: ns, kind: 'ConfigMap', group: '' });
const set = ['--prune', '--applyset=configmap/app'];

/** The output with what differs between twin sets replaced: namespace, ID, uid, resourceVersion, creationTimestamp. */
function normal(out: string, ns: string): string {
  return out
    .replaceAll(idOf(ns), 'ID')
    .replaceAll(ns, 'NS')
    .replace(/("uid": |uid: )"?[0-9a-f-]{36}"?/g, '$1UID')
    .replace(/("resourceVersion": |resourceVersion: )"\d+"/g, '$1"RV"')
    .replace(/("creationTimestamp": |creationTimestamp: )"[^"]+"/g, '$1"TS"');
}

let nsCount = 0;
/** Two fresh namespaces holding the same set: kdyn's (`mine`) and kubectl's (`theirs`), members a, b, c. */
async function twins(prefix: string): Promise<{ mine: string; theirs: string; input: (names: string[]) => string }> {
  const [mine, theirs] = [`${prefix}-kd-${++nsCount}`, `${prefix}-kc-${nsCount}`];
  assert.equal((await kdyn(['apply', '-f', file(`ns-${mine}.yaml`, [mine, theirs].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })))])).code, 0);
  const input = (names: string[]) => file(`${prefix}-${names.join('')}.yaml`, names.map((n) => configMap(n)));
  const k = await kdyn(['apply', '-n', mine, '-f', input(['a', 'b', 'c']), ...set]);
  assert.equal(k.code, 0, k.err);
  const c = await kubectl(['apply', '--server-side', '-n', theirs, '-f', input(['a', 'b', 'c']), ...set]);
  assert.equal(c.code, 0, c.err);
  return { mine, theirs, input };
}

/** JSON documents one after another (each ends with `}` alone on its line). */
const jsonDocs = (out: string) => out.split(/(?<=^\}\n)/m).filter((d) => d !== '');

test('-o json and -o yaml: the applied objects, then each pruned object as it was before its deletion: kubectl\'s bytes (server dry run; one applied object and several)', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const { mine, theirs, input } = await twins('doc');
  for (const names of [['a'], ['a', 'z']]) {
    for (const o of ['json', 'yaml']) {
      const args = ['apply', '-f', input(names), ...set, '--dry-run=server', '-o', o];
      const k = await kdyn(['-n', mine, ...args]);
      const c = await kubectl([...args, '--server-side', '-n', theirs]);
      assert.equal(k.code, 0, k.err);
      assert.equal(c.code, 0, c.err);
      assert.equal(normal(k.out, mine), normal(c.out, theirs), `-o ${o} with ${names.join(',')}`);
    }
  }
  // What the bytes are: the applied document, then b and c one document each (no managedFields).
  const json = jsonDocs((await kdyn(['-n', mine, 'apply', '-f', input(['a', 'z']), ...set, '--dry-run=server', '-o', 'json'])).out).map((d) => JSON.parse(d) as { kind: string; items?: unknown[]; metadata: { name?: string; managedFields?: unknown } });
  assert.deepEqual(json.map((d) => d.kind + (d.items ? `(${d.items.length})` : `/${d.metadata.name}`)), ['List(2)', 'ConfigMap/b', 'ConfigMap/c']);
  assert.ok(json.every((d) => d.metadata.managedFields === undefined));
  const yaml = (await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '--dry-run=server', '-o', 'yaml'])).out;
  assert.match(yaml, /\n  name: a\n[^]*uid: \S+\napiVersion: v1\n[^]*\n  name: b\n[^]*\n---\napiVersion: v1\n[^]*\n  name: c\n/, 'kubectl puts no --- between the applied object and the first pruned one');
  assert.equal(yaml.match(/^---$/gm)?.length, 1);
  // -o jsonl (kdyn's): a line per applied object, then per pruned one, managedFields hidden as for the applied.
  const jsonl = (await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '--dry-run=server', '-o', 'jsonl'])).out.trim().split('\n').map((l) => JSON.parse(l) as { metadata: { name: string; managedFields?: unknown } });
  assert.deepEqual(jsonl.map((o) => o.metadata.name), ['a', 'b', 'c']);
  assert.ok(jsonl.every((o) => o.metadata.managedFields === undefined), 'no managedFields');
  assert.ok(server.store.get('', 'configmaps', mine, 'b'), 'a dry run deletes nothing');
});

test('-o yaml for real: the pruned objects printed as they were, then gone; -o name: the names, kubectl\'s bytes', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const { mine, theirs, input } = await twins('real');
  for (const extra of [['--dry-run=server', '-o', 'name'], ['-o', 'name']]) {
    const k = await kdyn(['-n', mine, 'apply', '-f', input(['a', 'b']), ...set, ...extra]);
    const c = await kubectl(['-n', theirs, 'apply', '--server-side', '-f', input(['a', 'b']), ...set, ...extra]);
    assert.equal(k.out, c.out.replaceAll(theirs, mine), extra.join(' '));
  }
  assert.equal(server.store.get('', 'configmaps', mine, 'c'), undefined, 'c pruned');
  const before = server.store.get('', 'configmaps', mine, 'b')!;
  const k = await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '-o', 'yaml']);
  const c = await kubectl(['-n', theirs, 'apply', '--server-side', '-f', input(['a']), ...set, '-o', 'yaml']);
  assert.equal(k.code, 0, k.err);
  assert.equal(normal(k.out, mine), normal(c.out, theirs));
  assert.ok(k.out.endsWith(`  name: b\n  namespace: ${mine}\n  resourceVersion: "${before.metadata.resourceVersion}"\n  uid: ${before.metadata.uid}\n`), 'b as it was listed, before its deletion');
  assert.equal(server.store.get('', 'configmaps', mine, 'b'), undefined);
});

test('--dry-run=client -o json|yaml: the requests, then the pruned objects as kubectl\'s client dry run prints them; nothing written', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not on PATH');
  const { mine, theirs, input } = await twins('client');
  const json = await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '--dry-run=client', '-o', 'json']);
  assert.equal(json.code, 0, json.err);
  // kubectl's client dry run is client-side apply (it refuses --server-side with it): the pruned documents after its first one are the comparison.
  const theirsJson = await kubectl(['-n', theirs, 'apply', '-f', input(['a']), ...set, '--dry-run=client', '-o', 'json']);
  assert.equal(theirsJson.code, 0, theirsJson.err);
  const [request, ...pruned] = jsonDocs(json.out);
  assert.equal((JSON.parse(request!) as { metadata: { labels: Record<string, string> } }).metadata.labels['applyset.kubernetes.io/part-of'], idOf(mine), 'the request carries the part-of label');
  assert.deepEqual(pruned.map((d) => normal(d, mine)), jsonDocs(theirsJson.out).slice(1).map((d) => normal(d, theirs)));
  assert.equal(pruned.length, 2);
  const yaml = await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '--dry-run=client', '-o', 'yaml']);
  const theirsYaml = await kubectl(['-n', theirs, 'apply', '-f', input(['a']), ...set, '--dry-run=client', '-o', 'yaml']);
  const afterFirst = (out: string) => out.slice(out.indexOf('apiVersion: v1\n', 1));
  assert.equal(normal(afterFirst(yaml.out), mine), normal(afterFirst(theirsYaml.out), theirs));
  server.clearLog();
  await kdyn(['-n', mine, 'apply', '-f', input(['a']), ...set, '--dry-run=client', '-o', 'yaml']);
  assert.deepEqual(writes(), []);
});

test('a fleet: -o json|yaml print each pruned object in its {context, object} record after its context\'s List; a fleet of one prints kubectl\'s bytes', async (t) => {
  const fleet = await startFleetEnv({ contexts: ['east', 'north', 'west'], prefix: 'kdyn-applyset-output-fleet-' });
  try {
    const run = (args: string[]) => kdynIn({ dir: fleet.dir, kubeconfig: fleet.kubeconfig })(args);
    const all = manifestFile(fleet.dir, 'all.yaml', [configMap('a'), configMap('b')]);
    const one = manifestFile(fleet.dir, 'one.yaml', [configMap('a')]);
    assert.equal((await run(['apply', '-n', 'demo', '-f', all, ...set, '--context', 'east,north'])).code, 0);
    const json = await run(['apply', '-n', 'demo', '-f', one, ...set, '--context', 'east,north', '--dry-run=server', '-o', 'json']);
    assert.equal(json.code, 0, json.err);
    const docs = jsonDocs(json.out).map((d) => JSON.parse(d) as { context: string; kind?: string; items?: Array<{ metadata: { name: string } }>; object?: { metadata: { name: string; managedFields?: unknown } } });
    assert.deepEqual(
      docs.map((d) => `${d.context}:${d.kind === 'List' ? `List[${d.items!.map((i) => i.metadata.name).join(',')}]` : `pruned ${d.object!.metadata.name}`}`),
      ['east:List[a]', 'east:pruned b', 'north:List[a]', 'north:pruned b'],
    );
    assert.ok(docs.every((d) => d.object?.metadata.managedFields === undefined));
    const yaml = await run(['apply', '-n', 'demo', '-f', one, ...set, '--context', 'east,north', '--dry-run=server', '-o', 'yaml']);
    const yamlDocs = yaml.out.split(/^---\n/m);
    assert.equal(yamlDocs.length, 4, yaml.out);
    assert.match(yamlDocs[1]!, /^context: east\nobject:\n  apiVersion: v1\n[^]*\n    name: b\n/);
    assert.match(yamlDocs[3]!, /^context: north\nobject:\n/);
    if (!hasKubectl()) return t.diagnostic('kubectl not on PATH: the fleet of one is not compared with kubectl');
    // The twin of east's set, made by kubectl in west: a fleet of one (--context east) prints what kubectl prints.
    const kubectlFleet = kubectlWith(fleet.kubeconfig, fleet.dir);
    assert.equal((await kubectlFleet(['apply', '--server-side', '--context', 'west', '-n', 'demo', '-f', all, ...set])).code, 0);
    for (const o of ['json', 'yaml']) {
      const k = await run(['apply', '-n', 'demo', '-f', one, ...set, '--context', 'east', '--dry-run=server', '-o', o]);
      const c = await kubectlFleet(['apply', '--server-side', '--context', 'west', '-n', 'demo', '-f', one, ...set, '--dry-run=server', '-o', o]);
      assert.equal(c.code, 0, c.err);
      assert.equal(normal(k.out, 'demo'), normal(c.out, 'demo'), `-o ${o}`);
    }
  } finally {
    await fleet.stop();
  }
});
