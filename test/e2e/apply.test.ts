/**
 * `kdyn apply` end to end against the local API server (in process through the CLI's main(), so the
 * server's request log shows exactly what was sent): bad input sends nothing, CRDs and their
 * instances in one call, unchanged on the second, conflicts and --force-conflicts, server dry run,
 * client dry run, directories with -R, stdin, kind: List, SIGINT.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import { toYAMLDocuments } from '../../src/printers/yaml.js';
import { FakeClock } from '../../src/core/clock.js';
import { configMap, kdynIn, manifestFile, signals, until } from './apply-helpers.js';

let env: ServerEnv;
let server: LocalApiServer;
let dir: string;
before(async () => {
  env = await startServerEnv({ seed: 'demo', crdEstablishDelayMs: 150 }, 'kdyn-apply-');
  ({ server, dir } = env);
});
after(() => env.stop());
beforeEach(() => server.clearLog());

const kdyn = (args: string[], stdin?: string) => kdynIn(env)(args, stdin);
const file = (name: string, docs: unknown[] | string) => manifestFile(dir, name, docs);
const cm = configMap;
const writes = () => server.requestLog.filter((r) => r.method !== 'GET');

test('malformed YAML in the third document: zero requests, file/line/column named, exit 1', async () => {
  const p = file('bad.yaml', `${toYAMLDocuments([cm('a'), cm('b')])}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n data: x: y\n`);
  const r = await kdyn(['apply', '-f', p]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^error: error parsing ".*bad\.yaml" \(line 19, column 2\): bad indentation of a mapping entry\n$/);
  assert.equal(r.out, '');
  assert.deepEqual(server.requestLog, [], 'not one request');
});

test('a document without metadata.name (or apiVersion): named by file and index, zero requests, every problem listed', async () => {
  const ok = file('ok.yaml', [cm('fine')]);
  const p = file('noname.yaml', [cm('a'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, { kind: 'ConfigMap', metadata: { name: 'x' } }]);
  const r = await kdyn(['apply', '-f', ok, '-f', p]);
  assert.equal(r.code, 1);
  assert.equal(r.err, `error: error validating "${p}" document 2: metadata.name not set\nerror: error validating "${p}" document 3: apiVersion not set\n`);
  assert.deepEqual(server.requestLog, []);
});

test('a namespace that contradicts -n: kubectl\'s message, no write at all', async () => {
  const p = file('ns.yaml', [cm('a'), cm('b', {}, 'other')]);
  const r = await kdyn(['apply', '-f', p, '-n', 'demo']);
  assert.equal(r.code, 1);
  assert.match(r.err, /the namespace from the provided object "other" does not match the namespace "demo"\. You must pass '--namespace=other' to perform this operation\./);
  assert.deepEqual(writes(), []);
});

test('a CRD Established before discovery lists its group (as kube-apiserver publishes it a moment later): its instance is applied once it is listed', async () => {
  const crd = simpleCrd({ group: 'late.kdyn.dev', plural: 'latecomers', kind: 'Latecomer' });
  const p = file('late.yaml', [crd, { apiVersion: 'late.kdyn.dev/v1', kind: 'Latecomer', metadata: { name: 'l1', namespace: 'demo' } }]);
  server.faults.lateGroups.set('late.kdyn.dev', 3);
  const r = await kdyn(['apply', '-f', p]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'customresourcedefinition.apiextensions.k8s.io/latecomers.late.kdyn.dev serverside-applied\nlatecomer.late.kdyn.dev/l1 serverside-applied\n');
  assert.equal(server.faults.lateGroups.size, 0, 'every late /apis document was asked for');
  assert.ok(server.requestLog.some((e) => e.method === 'PATCH' && e.path === '/apis/late.kdyn.dev/v1/namespaces/demo/latecomers/l1'));
});

test('a kind nothing can serve (no CRD of the input declares it): refused before the first write, even beside a CRD and its instance', async () => {
  const crd = simpleCrd({ group: 'refuse.kdyn.dev', plural: 'refusals', kind: 'Refusal' });
  const p = file('unmapped.yaml', [crd, { apiVersion: 'refuse.kdyn.dev/v1', kind: 'Refusal', metadata: { name: 'r1' } }, cm('u1'), { apiVersion: 'refuse.kdyn.dev/v1', kind: 'Frob', metadata: { name: 'f1' } }]);
  for (const more of [[], ['--dry-run=client']]) {
    const r = await kdyn(['apply', '-f', p, '-n', 'demo', ...more]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.err, `error: resource mapping not found for name: "f1" namespace: "" from "${p}" document 4: no matches for kind "Frob" in version "refuse.kdyn.dev/v1"; ensure CRDs are installed first\n`);
    assert.equal(r.out, '');
  }
  assert.deepEqual(writes(), []);
  assert.equal(server.store.get('apiextensions.k8s.io', 'customresourcedefinitions', '', 'refusals.refuse.kdyn.dev'), undefined);
});

test('usage errors exit 2 before any request: no -f, -k, --server-side=false, a URL', async () => {
  for (const args of [['apply'], ['apply', '-k', 'dir'], ['apply', '-f', 'x.yaml', '--server-side=false'], ['apply', '-f', 'https://example.com/x.yaml']]) {
    const r = await kdyn(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /^error: .*\(see 'kdyn apply --help'\)\n$/);
  }
  assert.deepEqual(server.requestLog, []);
});

test('--dry-run=client: prints the requests (an in-file CRD\'s instances included), sends no write', async () => {
  const p = file('client-dry.yaml', [simpleCrd({ group: 'dry.kdyn.dev', plural: 'drills', kind: 'Drill' }), { apiVersion: 'dry.kdyn.dev/v1', kind: 'Drill', metadata: { name: 'd1' } }, cm('c1')]);
  const r = await kdyn(['apply', '-f', p, '--dry-run=client', '-n', 'demo']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.split('\n').filter((l) => l.startsWith('# ')), [
    '# PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/drills.dry.kdyn.dev?fieldManager=kdyn&fieldValidation=Strict&force=false',
    '# PATCH /apis/dry.kdyn.dev/v1/namespaces/demo/drills/d1?fieldManager=kdyn&fieldValidation=Strict&force=false',
    '# PATCH /api/v1/namespaces/demo/configmaps/c1?fieldManager=kdyn&fieldValidation=Strict&force=false',
  ]);
  assert.deepEqual(writes(), []);
  assert.equal(server.store.get('apiextensions.k8s.io', 'customresourcedefinitions', '', 'drills.dry.kdyn.dev'), undefined);
});

test('SIGINT: no new request starts, the one in flight finishes, the summary says what was done, exit 130', async () => {
  const p = file('many.yaml', [1, 2, 3, 4, 5].map((i) => cm(`int-${i}`)));
  // The second object's PATCH is held by the server; SIGINT arrives while it is in flight.
  const held = server.faults.add({ method: 'PATCH', path: '/api/v1/namespaces/demo/configmaps/int-2', delayMs: 300, times: 1 });
  const run = kdyn(['apply', '-f', p, '-n', 'demo', '--concurrency', '1']);
  await until(() => held.hits > 0, 'the second PATCH arrived', run);
  signals.emit('signal', 'SIGINT');
  const r = await run;
  assert.equal(r.code, 130);
  const patches = server.requestLog.filter((e) => e.method === 'PATCH').map((e) => e.path.split('/').pop());
  assert.deepEqual(patches, ['int-1', 'int-2']);
  assert.ok(server.requestLog.find((e) => e.method === 'PATCH' && e.path.endsWith('/int-2'))!.status > 0, 'the request in flight was answered');
  assert.match(r.err, /^interrupted: 5 objects: .*, 3 not attempted\n$/m);
  assert.equal(signals.listenerCount('signal'), 0, 'the handler is removed');
});

test('SIGINT while new CRDs are awaited: their instances are not attempted (not failed), exit 130', async () => {
  // A server whose clock never moves: the CRD is never established.
  const frozen = await startServerEnv({ seed: 'demo', clock: new FakeClock(), crdEstablishDelayMs: 1000 }, 'kdyn-apply-frozen-');
  try {
    const p = manifestFile(frozen.dir, 'crd.yaml', [simpleCrd({ group: 'frozen.kdyn.dev', plural: 'icicles', kind: 'Icicle' }), { apiVersion: 'frozen.kdyn.dev/v1', kind: 'Icicle', metadata: { name: 'i1' } }]);
    const run = kdynIn(frozen)(['apply', '-f', p, '-n', 'demo']);
    await until(() => frozen.server.requestLog.some((e) => /(^|&)watch=/.test(e.query)), 'the CRD watch started', run);
    signals.emit('signal', 'SIGINT');
    const r = await run;
    assert.equal(r.code, 130);
    assert.deepEqual(r.out.split('\n').filter((l) => l), ['customresourcedefinition.apiextensions.k8s.io/icicles.frozen.kdyn.dev serverside-applied']);
    assert.equal(r.err, 'interrupted: 2 objects: 1 succeeded, 0 failed, 1 not attempted\n');
  } finally {
    await frozen.stop();
  }
});
