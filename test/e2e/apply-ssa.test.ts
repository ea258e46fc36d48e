/**
 * `kdyn apply` against the local API server's server-side apply: a CRD and its instances in one call
 * (created, then unchanged), conflicts and --force-conflicts, --dry-run=server leaving the server as
 * it was, -R directories, stdin, kind: List, --wait, and the same file applied by
 * `kubectl apply --server-side` for comparison.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import { spawn } from 'node:child_process';
import { hasKubectl, KDYN, runCommand } from '../support/cli.js';
import { configMap as cm, kdynIn, manifestFile, signals, until } from './apply-helpers.js';
import { connect } from '../../src/connect.js';

let env: ServerEnv;
let server: LocalApiServer;
let dir: string;
before(async () => {
  // TLS: kubectl sends its bearer token only over https. New CRDs are established after 150 ms.
  env = await startServerEnv({ seed: 'demo', crdEstablishDelayMs: 150 }, 'kdyn-apply-');
  ({ server, dir } = env);
});
after(() => env.stop());
beforeEach(() => server.clearLog());

const kdyn = (args: string[], stdin?: string) => kdynIn(env)(args, stdin);
const file = (name: string, docs: unknown[] | string) => manifestFile(dir, name, docs);
const lines = (s: string) => s.split('\n').filter((l) => l !== '');
const stored = (resource: string, ns: string, name: string, group = '') => server.store.get(group, resource, ns, name);

test('a CRD and its instances in one file: one call creates them all, the second reports unchanged', async () => {
  const crd = simpleCrd({ group: 'gadgets.kdyn.dev', plural: 'gadgets', kind: 'Gadget' });
  const gadget = (name: string, size: number) => ({ apiVersion: 'gadgets.kdyn.dev/v1', kind: 'Gadget', metadata: { name }, spec: { size } });
  // Instances first in the file: the stages put the CRD before them anyway; output stays in input order.
  const p = file('crd-and-instances.yaml', [gadget('g1', 1), crd, gadget('g2', 2), cm('with-gadgets')]);
  const r = await kdyn(['apply', '-f', p, '-n', 'demo']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(lines(r.out), [
    'gadget.gadgets.kdyn.dev/g1 serverside-applied',
    'customresourcedefinition.apiextensions.k8s.io/gadgets.gadgets.kdyn.dev serverside-applied',
    'gadget.gadgets.kdyn.dev/g2 serverside-applied',
    'configmap/with-gadgets serverside-applied',
  ]);
  assert.equal(r.err, '4 objects: 4 succeeded, 0 failed\n');
  assert.deepEqual(stored('gadgets', 'demo', 'g2', 'gadgets.kdyn.dev')?.spec, { size: 2 });
  // The CRD was awaited (watched until Established) before its instances were sent.
  const log = server.requestLog.map((e) => `${e.method} ${e.path}${/(^|&)watch=/.test(e.query) ? ' (watch)' : ''}`);
  const crdPatch = log.indexOf('PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.gadgets.kdyn.dev');
  const firstGadget = log.findIndex((l) => l.startsWith('PATCH /apis/gadgets.kdyn.dev/v1/namespaces/demo/gadgets/'));
  assert.ok(crdPatch >= 0 && firstGadget > crdPatch, log.join('\n'));
  assert.ok(log.slice(crdPatch, firstGadget).includes('GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions (watch)'), log.join('\n'));
  // Instances of a CRD this run created cannot have existed: no read before their PATCH.
  assert.ok(!log.some((l) => l.startsWith('GET /apis/gadgets.kdyn.dev/')), log.join('\n'));

  server.clearLog();
  const again = await kdyn(['apply', '-f', p, '-n', 'demo']);
  assert.equal(again.code, 0, again.err);
  assert.deepEqual(lines(again.out), lines(r.out).map((l) => l.replace('serverside-applied', 'unchanged')));
  assert.equal(again.err, '4 objects: 4 succeeded (4 unchanged), 0 failed\n');
});

test('a conflicting field manager: exit 1, the manager and field named, the other objects applied; then --force-conflicts', async () => {
  const first = await kdyn(['apply', '-f', file('owner.yaml', [cm('shared', { k: 'theirs' })]), '-n', 'team-a', '--field-manager', 'other']);
  assert.equal(first.code, 0, first.err);
  const p = file('conflict.yaml', [cm('ok-1'), cm('shared', { k: 'mine' }), cm('ok-2')]);
  const r = await kdyn(['apply', '-f', p, '-n', 'team-a']);
  assert.equal(r.code, 1);
  assert.deepEqual(lines(r.out), ['configmap/ok-1 serverside-applied', 'configmap/ok-2 serverside-applied']);
  assert.match(r.err, new RegExp(`^Error from server \\(Conflict\\): error when applying configmap/shared from "${p}" document 2: Apply failed with 1 conflict: conflict with "other": \\.data\\.k \\(rerun with --force-conflicts to take these fields over, or with --field-manager=other to apply as "other", which owns them\\)\\n3 objects: 2 succeeded, 1 failed\\n$`));
  assert.ok(stored('configmaps', 'team-a', 'ok-1') && stored('configmaps', 'team-a', 'ok-2'));
  assert.equal(stored('configmaps', 'team-a', 'shared')?.data.k, 'theirs');

  const forced = await kdyn(['apply', '-f', p, '-n', 'team-a', '--force-conflicts']);
  assert.equal(forced.code, 0, forced.err);
  assert.equal(stored('configmaps', 'team-a', 'shared')?.data.k, 'mine');
});

test('an object last applied by kubectl apply --server-side: the conflict says --force-conflicts or --field-manager=kubectl, which then applies', async (t) => {
  const p = file('from-kubectl.yaml', [cm('from-kubectl', { k: 'kubectl' })]);
  if (hasKubectl()) {
    const kubectl = await runCommand('kubectl', ['apply', '--server-side', '-f', p, '-n', 'team-a'], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: env.kubeconfig } });
    assert.equal(kubectl.code, 0, kubectl.err);
  } else {
    t.diagnostic('kubectl not found on PATH: the first apply is kdyn --field-manager=kubectl');
    assert.equal((await kdyn(['apply', '-f', p, '-n', 'team-a', '--field-manager', 'kubectl'])).code, 0);
  }
  const mine = file('from-kdyn.yaml', [cm('from-kubectl', { k: 'kdyn' })]);
  const r = await kdyn(['apply', '-f', mine, '-n', 'team-a']);
  assert.equal(r.code, 1);
  assert.equal(lines(r.err)[0], `Error from server (Conflict): error when applying configmap/from-kubectl from "${mine}" document 1: Apply failed with 1 conflict: conflict with "kubectl": .data.k (rerun with --force-conflicts to take these fields over, or with --field-manager=kubectl to apply as "kubectl", which owns them)`);
  const shared = await kdyn(['apply', '-f', mine, '-n', 'team-a', '--field-manager=kubectl']);
  assert.equal(shared.code, 0, shared.err);
  const obj = stored('configmaps', 'team-a', 'from-kubectl');
  assert.equal(obj?.data.k, 'kdyn');
  assert.deepEqual(obj?.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager} ${m.operation}`), ['kubectl Apply'], 'one manager: kubectl\'s ownership continued, not a second owner');
});

test('--dry-run=server changes nothing on the server, and says so', async () => {
  await kdyn(['apply', '-f', file('dry-base.yaml', [cm('dry-existing', { k: 'old' })]), '-n', 'team-b']);
  const snapshot = () => JSON.stringify({ rv: server.store.resourceVersion, cms: server.store.list('', 'configmaps', { namespace: 'team-b' }) });
  const before = snapshot();
  server.clearLog();
  const p = file('dry.yaml', [cm('dry-existing', { k: 'new' }), cm('dry-new'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-ns' } }]);
  const r = await kdyn(['apply', '-f', p, '-n', 'team-b', '--dry-run=server']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(lines(r.out), [
    'configmap/dry-existing serverside-applied (server dry run)',
    'configmap/dry-new serverside-applied (server dry run)',
    'namespace/dry-ns serverside-applied (server dry run)',
  ]);
  assert.ok(server.requestLog.filter((e) => e.method === 'PATCH').every((e) => e.query.split('&').includes('dryRun=All')));
  assert.equal(snapshot(), before);
  assert.equal(stored('namespaces', '', 'dry-ns'), undefined);
});

test('a directory with -R, stdin and a kind: List', async () => {
  file('tree/a.yaml', [cm('tree-a')]);
  file('tree/sub/b.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [cm('tree-b'), cm('tree-c')] }));
  file('tree/notes.txt', 'ignored');
  const flat = await kdyn(['apply', '-f', join(dir, 'tree'), '-n', 'team-b']);
  assert.deepEqual(lines(flat.out), ['configmap/tree-a serverside-applied']);
  const deep = await kdyn(['apply', '-f', join(dir, 'tree'), '-R', '-n', 'team-b', '-o', 'name']);
  assert.equal(deep.code, 0, deep.err);
  assert.deepEqual(lines(deep.out), ['configmap/tree-a', 'configmap/tree-b', 'configmap/tree-c']);
  const piped = await kdyn(['apply', '-f', '-', '-n', 'team-b', '-o', 'json'], JSON.stringify(cm('from-stdin', { via: 'stdin' })));
  assert.equal(piped.code, 0, piped.err);
  const obj = JSON.parse(piped.out);
  assert.equal(obj.metadata.name, 'from-stdin');
  assert.equal(obj.metadata.managedFields, undefined, 'managedFields hidden as kubectl does');
  assert.deepEqual(stored('configmaps', 'team-b', 'from-stdin')?.data, { via: 'stdin' });
});

test('--wait: a Deployment nobody rolls out times out naming it; one whose status a controller completes is ready', async () => {
  const deploy = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const stuck = await kdyn(['apply', '-f', file('stuck.yaml', [deploy('stuck')]), '-n', 'team-a', '--wait', '--timeout', '300ms']);
  assert.equal(stuck.code, 1);
  assert.match(stuck.err, /^error: timed out waiting for deployment\.apps\/stuck: Waiting for deployment/m);

  // A stand-in for the deployment controller: it completes the rollout of `rolls` on every change.
  const stop = server.store.subscribe((e) => {
    const o = e.object as { kind?: string; metadata: { name: string; generation?: number }; status?: { observedGeneration?: number } };
    if (e.type === 'DELETED' || o.metadata.name !== 'rolls' || o.status?.observedGeneration === o.metadata.generation) return;
    queueMicrotask(() => {
      const cur = structuredClone(stored('deployments', 'team-a', 'rolls', 'apps'));
      if (!cur) return;
      cur.status = { observedGeneration: cur.metadata.generation ?? 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
      server.store.update('apps', 'deployments', cur);
    });
  });
  try {
    const ok = await kdyn(['apply', '-f', file('rolls.yaml', [deploy('rolls')]), '-n', 'team-a', '--wait', '--timeout', '10s']);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.err, /1 succeeded, 0 failed; 1 ready/);
  } finally {
    stop();
  }
});

test('the same file through kubectl apply --server-side: the same output lines and the same objects', async (t) => {
  if (!hasKubectl()) return t.skip('kubectl not found on PATH: comparison with kubectl apply --server-side skipped');
  const docs = [cm('cmp-cm', { a: '1', b: 'two' }), { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'cmp-rocket' }, spec: { stage: 'orbit', engines: 2 } }];
  const p = file('compare.yaml', docs);
  const kubectl = await runCommand('kubectl', ['apply', '--server-side', '-f', p, '-n', 'team-a'], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: env.kubeconfig } });
  assert.equal(kubectl.code, 0, kubectl.err);
  const ours = await kdyn(['apply', '-f', p, '-n', 'team-b', '--field-manager', 'kubectl']);
  assert.equal(ours.code, 0, ours.err);
  assert.deepEqual(lines(ours.out), lines(kubectl.out));
  const comparable = (o: Record<string, any> | undefined) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, namespace: _n, managedFields, ...md } = o!.metadata;
    return { ...o, metadata: { ...md, managers: (managedFields ?? []).map((m: Record<string, unknown>) => [m.manager, m.operation, JSON.stringify(m.fieldsV1)]) } };
  };
  assert.deepEqual(comparable(stored('configmaps', 'team-b', 'cmp-cm')), comparable(stored('configmaps', 'team-a', 'cmp-cm')));
  assert.deepEqual(comparable(stored('rockets', 'team-b', 'cmp-rocket', 'demo.kdyn.dev')), comparable(stored('rockets', 'team-a', 'cmp-rocket', 'demo.kdyn.dev')));

  // A CRD with its instance in one file: kubectl's first call fails on the instance (the pain
  // point), kdyn's one call applies both.
  const crdFile = (tag: string) => file(`crd-${tag}.yaml`, [
    simpleCrd({ group: `${tag}.cmp.kdyn.dev`, plural: 'widgets', kind: 'Widget' }),
    { apiVersion: `${tag}.cmp.kdyn.dev/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
  ]);
  const kc = await runCommand('kubectl', ['apply', '--server-side', '-f', crdFile('kubectl'), '-n', 'team-a'], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: env.kubeconfig } });
  assert.equal(kc.code, 1);
  // (a real v1.32 server: `resource mapping not found ... ensure CRDs are installed first`; here kubectl's
  // OpenAPI check of the unknown kind fails first: either way the instance is not applied)
  assert.match(kc.err, /ensure CRDs are installed first|error validating data/);
  assert.equal(stored('widgets', 'team-a', 'w1', 'kubectl.cmp.kdyn.dev'), undefined);
  const kd = await kdyn(['apply', '-f', crdFile('kdyn'), '-n', 'team-a']);
  assert.equal(kd.code, 0, kd.err);
  assert.ok(stored('widgets', 'team-a', 'w1', 'kdyn.cmp.kdyn.dev'));
});

test('--validate maps to fieldValidation as kubectl; -o yaml prints one object as itself and several as a List', async () => {
  const p = file('validate.yaml', [cm('v-1'), cm('v-2')]);
  for (const [flag, value] of [['--validate=false', 'Ignore'], ['--validate=warn', 'Warn'], ['--validate=true', 'Strict']]) {
    server.clearLog();
    const r = await kdyn(['apply', '-f', p, '-n', 'team-b', flag!, '-o', 'name']);
    assert.equal(r.code, 0, r.err);
    const patches = server.requestLog.filter((e) => e.method === 'PATCH');
    assert.equal(patches.length, 2);
    assert.ok(patches.every((e) => e.query.split('&').includes(`fieldValidation=${value}`)), `${flag}: ${patches[0]!.query}`);
  }
  const two = await kdyn(['apply', '-f', p, '-n', 'team-b', '-o', 'yaml']);
  assert.match(two.out, /^apiVersion: v1\nitems:\n- apiVersion: v1\n/);
  assert.match(two.out, /\nkind: List\n/);
  const one = await kdyn(['apply', '-f', file('one.yaml', [cm('v-1')]), '-n', 'team-b', '-o', 'yaml']);
  assert.match(one.out, /^apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n/);
});

test('a CRD the server rejects: its own error, and its instances name it; an unknown field fails Strict validation only', async () => {
  const bad = simpleCrd({ group: 'broken.kdyn.dev', plural: 'broken', kind: 'Broken' });
  delete (bad.spec as Record<string, unknown>).scope;
  const p = file('broken.yaml', [bad, { apiVersion: 'broken.kdyn.dev/v1', kind: 'Broken', metadata: { name: 'b1' } }, cm('next-to-broken')]);
  const r = await kdyn(['apply', '-f', p, '-n', 'team-b']);
  assert.equal(r.code, 1);
  assert.deepEqual(lines(r.out), ['configmap/next-to-broken serverside-applied']);
  const errs = lines(r.err);
  assert.match(errs[0]!, /^Error from server \(Invalid\): error when applying customresourcedefinition\.apiextensions\.k8s\.io\/broken\.broken\.kdyn\.dev from ".*broken\.yaml" document 1: .*spec\.scope/);
  assert.match(errs[1]!, /^error: resource mapping not found for name: "b1" namespace: "" from ".*broken\.yaml" document 2: no matches for kind "Broken" in version "broken\.kdyn\.dev\/v1"; applying its CustomResourceDefinition "broken\.broken\.kdyn\.dev" failed$/);
  assert.equal(errs[2], '3 objects: 1 succeeded, 2 failed');

  const rocket = { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'strict-rocket' }, spec: { stage: 'orbit', engines: 1, wings: 2 } };
  const strict = await kdyn(['apply', '-f', file('strict.yaml', [rocket]), '-n', 'team-b']);
  assert.equal(strict.code, 1);
  assert.match(strict.err, /^Error from server \(BadRequest\): error when applying rocket\.demo\.kdyn\.dev\/strict-rocket from .*: .*wings/);
  const lenient = await kdyn(['apply', '-f', file('strict.yaml', [rocket]), '-n', 'team-b', '--validate=false']);
  assert.equal(lenient.code, 0, lenient.err);
});

test('a 500 whose Status has no reason: `Error from server: ...`, as kubectl; no reason made up', async (t) => {
  const kubectl = (p: string) => runCommand('kubectl', ['apply', '--server-side', '-f', p, '-n', 'team-a'], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: env.kubeconfig } });
  // Injected: strict field validation's answer on a real server (issue 22).
  const message = 'failed to create typed patch object (team-a/reasonless; /v1, Kind=ConfigMap): .data.bogus: field not declared in schema';
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
  const injected = file('reasonless.yaml', [cm('reasonless', { a: '1' })]);
  // The local server's own: a value of the wrong type in the typed patch (recording 39).
  const typed = file('typed.yaml', [{ apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'typed-rocket' }, spec: { stage: 'orbit', engines: 'two' } }]);
  const typedDetail = 'failed to create typed patch object (team-a/typed-rocket; demo.kdyn.dev/v1, Kind=Rocket): .spec.engines: ';
  server.faults.add({ method: 'PATCH', path: /\/configmaps\/reasonless\?/, status: 500, headers: { 'content-type': 'application/json' }, body });
  try {
    const r = await kdyn(['apply', '-f', injected, '-n', 'team-a']);
    assert.equal(r.code, 1);
    assert.equal(r.err, `Error from server: error when applying configmap/reasonless from "${injected}" document 1: ${message}\n1 object: 0 succeeded, 1 failed\n`);
    const ours = await kdyn(['apply', '-f', typed, '-n', 'team-a']);
    assert.equal(ours.code, 1);
    assert.ok(lines(ours.err)[0]!.startsWith(`Error from server: error when applying rocket.demo.kdyn.dev/typed-rocket from "${typed}" document 1: ${typedDetail}`), ours.err);

    if (!hasKubectl()) return t.skip('kubectl not found on PATH: comparison with kubectl apply --server-side skipped');
    const k1 = await kubectl(injected);
    assert.equal(k1.code, 1);
    assert.equal(k1.err, `Error from server: ${message}\n`);
    const k2 = await kubectl(typed);
    assert.equal(k2.code, 1);
    assert.ok(k2.err.startsWith(`Error from server: ${typedDetail}`), k2.err);
  } finally {
    server.faults.clear();
  }
});

test('SIGINT during --wait: the wait ends at once, the summary says interrupted, exit 130', async () => {
  const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'waits' }, spec: { replicas: 1, selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  const run = kdyn(['apply', '-f', file('waits.yaml', [d]), '-n', 'team-a', '--wait', '--timeout', '60s']);
  await until(() => server.requestLog.some((e) => /(^|&)watch=/.test(e.query)), 'the watch started', run);
  signals.emit('signal', 'SIGINT');
  const r = await run;
  assert.equal(r.code, 130);
  assert.match(r.err, /^error: deployment\.apps\/waits is not ready \(interrupted\): Waiting for deployment/m);
  assert.match(r.err, /^interrupted: 1 object: 1 succeeded, 0 failed; 0 ready\n$/m);
  assert.equal(signals.listenerCount('signal'), 0);
});

test('a CRD deleted and applied again while the discovery cache still maps its kind: its instances wait for it', async () => {
  const crd = simpleCrd({ group: 'again.kdyn.dev', plural: 'phoenixes', kind: 'Phoenix' });
  const p = file('again.yaml', [crd, { apiVersion: 'again.kdyn.dev/v1', kind: 'Phoenix', metadata: { name: 'fawkes' } }]);
  assert.equal((await kdyn(['apply', '-f', p, '-n', 'demo'])).code, 0);
  const k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: dir } });
  try {
    await k.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false }).delete('phoenixes.again.kdyn.dev');
  } finally {
    k.close();
  }
  assert.equal(stored('phoenixes', 'demo', 'fawkes', 'again.kdyn.dev'), undefined);
  // kdyn's cache (10-minute TTL) still maps Phoenix; the new CRD is established 150 ms after its apply.
  const r = await kdyn(['apply', '-f', p, '-n', 'demo']);
  assert.equal(r.code, 0, r.err);
  assert.ok(stored('phoenixes', 'demo', 'fawkes', 'again.kdyn.dev'));
});

test('the built CLI on a real SIGINT: the request in flight finishes, the rest are not attempted, exit 130', async () => {
  const p = file('real-signal.yaml', [1, 2, 3].map((i) => cm(`sig-${i}`)));
  const held = server.faults.add({ method: 'PATCH', path: '/api/v1/namespaces/team-b/configmaps/sig-1', delayMs: 400, times: 1 });
  const child = spawn(process.execPath, [KDYN, 'apply', '-f', p, '-n', 'team-b', '--concurrency', '1', '--kubeconfig', env.kubeconfig, '--cache-dir', join(dir, 'cache')], { env: { HOME: dir } });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  await until(() => held.hits > 0, 'the first PATCH arrived', exited);
  child.kill('SIGINT');
  assert.equal(await exited, 130, err);
  assert.match(err, /^interrupted: 3 objects: 1 succeeded, 0 failed, 2 not attempted\n$/m);
  assert.ok(stored('configmaps', 'team-b', 'sig-1'));
  assert.equal(stored('configmaps', 'team-b', 'sig-2'), undefined);
});
