/**
 * `kdyn delete` next to `kubectl delete` v1.32 on one local API server: the same objects are made
 * before each run, then stdout, stderr and the exit code must be the same (kdyn's usage errors
 * exit 2 with `(see 'kdyn delete --help')`, kubectl's 1). Every flag: -f FILE|DIR|-, -R, TYPE NAME...,
 * TYPE/NAME, -l, --field-selector, --all, -A, -n, --cascade, --grace-period, --now, --force, --wait,
 * --timeout, --dry-run, --ignore-not-found, -o name; what was sent (DeleteOptions bodies); the wait
 * for an object with a finalizer; a CRD's instance warning and the discovery cache after it.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import type { RequestLogEntry } from '../support/apiserver/server.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import { toYAMLDocuments } from '../../src/printers/yaml.js';
import type { DynamicClient } from '../../src/dynamic/client.js';
import { clientFor, envFor } from './watch-helpers.js';
import { kdynIn, signals, until } from './apply-helpers.js';

let env: ServerEnv;
let client: DynamicClient;
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const NS = { group: '', version: 'v1', resource: 'namespaces' };
const POD = { group: '', version: 'v1', resource: 'pods' };

before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-delete-');
  client = clientFor(env.server);
  for (const name of ['del', 'del2']) await client.resource(NS).create({ metadata: { name } });
});
after(() => env.stop());
/** The requests of the runs `same` made (kubectl's, then kdyn's), without the set-up's. */
const sent: RequestLogEntry[] = [];
beforeEach(() => {
  env.server.clearLog();
  sent.length = 0;
});

const cms = (ns = 'del') => client.resource(CM, { namespaced: true }).namespace(ns);

/** Makes the configmaps (labels from `app=`), replacing any of the same name. */
async function makeCms(specs: Array<{ name: string; ns?: string; labels?: Record<string, string>; finalizers?: string[] }>): Promise<void> {
  for (const s of specs) {
    const h = cms(s.ns);
    await h.delete(s.name).catch(() => undefined);
    const cur = await h.get(s.name).catch(() => undefined);
    if (cur) await h.patch(s.name, { metadata: { finalizers: null } } as never, 'merge').catch(() => undefined);
    await h.create({ metadata: { name: s.name, labels: s.labels, finalizers: s.finalizers } });
  }
}

const clean = (r: Run): Run => ({ ...r, err: r.err.replace(/^[EIW]\d{4} .*\n/gm, '') });
const kubectl = async (args: string[], stdin?: string) => clean(await runCommand('kubectl', args, { env: envFor(env.dir, env.kubeconfig, 'home-kubectl'), cwd: env.dir, stdin }));
const kdyn = (args: string[], stdin?: string) => runKdyn(args, { env: envFor(env.dir, env.kubeconfig), cwd: env.dir, stdin });

/** Sets up, runs kubectl, sets up again, runs kdyn: the same stdout, stderr and exit code. */
async function same(args: string[], setup: () => Promise<void> = async () => undefined, stdin?: string): Promise<Run> {
  await setup();
  let from = env.server.requestLog.length;
  const k = await kubectl(args, stdin);
  sent.push(...env.server.requestLog.slice(from));
  await setup();
  from = env.server.requestLog.length;
  const d = await kdyn(args, stdin);
  sent.push(...env.server.requestLog.slice(from));
  assert.deepEqual({ code: d.code, out: d.out, err: d.err }, { code: k.code, out: k.out, err: k.err }, `delete ${args.join(' ')}`);
  return d;
}

const file = (name: string, docs: unknown[]): string => {
  const p = join(env.dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, toYAMLDocuments(docs));
  return p;
};
const cmDoc = (name: string, namespace?: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace ? { namespace } : {}) } });
const three = () => makeCms([{ name: 'a', labels: { app: 'x' } }, { name: 'b', labels: { app: 'x' } }, { name: 'c' }]);

test('TYPE NAME... and TYPE/NAME: kubectl\'s lines, a missing name after the others, exit 1', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const r = await same(['delete', 'cm', 'a', 'nosuch', 'c', '-n', 'del'], three);
  assert.equal(r.out, 'configmap "a" deleted\nconfigmap "c" deleted\n');
  assert.equal(r.err, 'Error from server (NotFound): configmaps "nosuch" not found\n');
  await same(['delete', 'cm/a', 'configmap/b', '-n', 'del', '-o', 'name'], three);
  await same(['delete', 'cm', 'nosuch', '-n', 'del', '--ignore-not-found'], three);
});

test('-l, --field-selector, --all, -A: listed, then deleted one by one; nothing matched is `No resources found`', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const r = await same(['delete', 'cm', '-l', 'app=x', '-n', 'del'], three);
  assert.equal(r.out, 'configmap "a" deleted\nconfigmap "b" deleted\n');
  assert.equal(sent.filter((e) => e.method === 'GET' && e.path === '/api/v1/namespaces/del/configmaps' && e.query.includes('labelSelector=app%3Dx')).length, 2, 'each tool listed once');
  await same(['delete', 'cm', '--field-selector', 'metadata.name=c', '-n', 'del'], three);
  await same(['delete', 'cm', '--all', '-n', 'del', '-o', 'name'], three);
  await same(['delete', 'cm', '-l', 'app=x', '-A'], async () => {
    await three();
    await makeCms([{ name: 'a', ns: 'del2', labels: { app: 'x' } }]);
  });
  const none = await same(['delete', 'cm', '-l', 'app=nothing', '-n', 'del'], three);
  assert.equal(none.out, 'No resources found\n');
});

test('-f FILE, DIR with -R and -: kubectl\'s source in errors (`error when deleting "f.yaml"`), -n\'s namespace rule and its cluster-scope warning', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const f = file('m/one.yaml', [cmDoc('a'), cmDoc('gone'), cmDoc('b', 'del')]);
  file('m/sub/two.yaml', [cmDoc('c', 'del')]);
  const r = await same(['delete', '-f', f, '-n', 'del'], three);
  assert.equal(r.out, 'configmap "a" deleted\nconfigmap "b" deleted\n');
  assert.equal(r.err, `Error from server (NotFound): error when deleting "${f}": configmaps "gone" not found\n`);
  await same(['delete', '-f', join(env.dir, 'm'), '-R', '-n', 'del', '--ignore-not-found'], three);
  await same(['delete', '-f', '-', '-n', 'del'], three, toYAMLDocuments([cmDoc('a'), cmDoc('nope')]));
  // A namespace that contradicts -n is that object's error; a cluster-scoped object is warned about once.
  const mixed = file('mixed.yaml', [cmDoc('a', 'other'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'del-temp' } }, cmDoc('b')]);
  await same(['delete', '-f', mixed, '-n', 'del', '--wait=false'], async () => {
    await three();
    await client.resource(NS).create({ metadata: { name: 'del-temp' } }).catch(() => undefined);
  });
});

test('-f with a kind nothing serves: the others are deleted, the mapping error comes last (kdyn: one line)', async () => {
  await three();
  const f = file('unmapped.yaml', [cmDoc('a'), { apiVersion: 'x.dev/v1', kind: 'Frob', metadata: { name: 'fr' } }, cmDoc('gone')]);
  const r = await kdyn(['delete', '-f', f, '-n', 'del']);
  assert.equal(r.code, 1);
  assert.equal(r.out, 'configmap "a" deleted\n');
  assert.equal(
    r.err,
    `Error from server (NotFound): error when deleting "${f}": configmaps "gone" not found\n` +
      `resource mapping not found for name: "fr" namespace: "" from "${f}" document 2: no matches for kind "Frob" in version "x.dev/v1"; ensure CRDs are installed first\n`,
  );
});

test('--dry-run=server|client and bare --dry-run: nothing is deleted; --dry-run=none deletes', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const r = await same(['delete', 'cm', 'a', 'b', '-n', 'del', '--dry-run=server'], three);
  assert.equal(r.out, 'configmap "a" deleted (server dry run)\nconfigmap "b" deleted (server dry run)\n');
  // kubectl says it in the DeleteOptions, kdyn in the query too.
  const dry = (e: RequestLogEntry) => e.query === 'dryRun=All' || (JSON.parse(e.body ?? '{}') as { dryRun?: string[] }).dryRun?.includes('All') === true;
  assert.deepEqual(sent.filter((e) => e.method === 'DELETE').map(dry), [true, true, true, true]);
  await same(['delete', 'cm', 'a', 'nosuch', '-n', 'del', '--dry-run=client'], three);
  env.server.clearLog();
  const bare = await kdyn(['delete', 'cm', 'a', '-n', 'del', '--dry-run']);
  assert.deepEqual([bare.code, bare.out, bare.err], [0, 'configmap "a" deleted (dry run)\n', 'Warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n']);
  assert.deepEqual(env.server.requestLog.filter((e) => e.method === 'DELETE'), [], 'a client dry run sends no DELETE');
  assert.ok(await cms().get('a'), 'still there');
  await same(['delete', 'cm', 'a', '-n', 'del', '--dry-run=none'], three);
});

test('--cascade, --grace-period, --now, --force: kubectl\'s DeleteOptions, lines and warnings', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const bodies = () => sent.filter((e) => e.method === 'DELETE').map((e) => JSON.parse(e.body ?? '{}'));
  const pick = (b: Record<string, unknown>) => ({ propagationPolicy: b.propagationPolicy, gracePeriodSeconds: b.gracePeriodSeconds });
  for (const [flags, want] of [
    [[], { propagationPolicy: 'Background', gracePeriodSeconds: undefined }],
    [['--cascade=orphan'], { propagationPolicy: 'Orphan', gracePeriodSeconds: undefined }],
    [['--cascade=foreground', '--grace-period=7'], { propagationPolicy: 'Foreground', gracePeriodSeconds: 7 }],
    [['--cascade'], { propagationPolicy: 'Background', gracePeriodSeconds: undefined }],
    [['--cascade=false'], { propagationPolicy: 'Orphan', gracePeriodSeconds: undefined }],
    [['--now'], { propagationPolicy: 'Background', gracePeriodSeconds: 1 }],
    [['--grace-period=0'], { propagationPolicy: 'Background', gracePeriodSeconds: 1 }],
    [['--force'], { propagationPolicy: 'Background', gracePeriodSeconds: 0 }],
    [['--force', '--grace-period=0'], { propagationPolicy: 'Background', gracePeriodSeconds: 0 }],
  ] as Array<[string[], object]>) {
    sent.length = 0;
    await same(['delete', 'cm', 'a', '-n', 'del', ...flags], three);
    const options = bodies().map(pick);
    assert.equal(options.length, 2, 'kubectl and kdyn sent one DELETE each');
    assert.deepEqual(options[1], want, `${flags.join(' ')}: kdyn's body`);
    assert.deepEqual(options[1], options[0], `${flags.join(' ')}: the same as kubectl's`);
  }
  const forced = await same(['delete', 'cm', 'a', '-n', 'del', '--force'], three);
  assert.equal(forced.out, 'configmap "a" force deleted\n');
});

test('usage errors: kubectl\'s messages before any request (kdyn exits 2)', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  for (const args of [
    ['delete', 'cm'],
    ['delete', '--all'],
    ['delete', 'cm', '--all', '-l', 'a=b'],
    ['delete', 'cm', 'x', '-l', 'a=b'],
    ['delete', 'cm', 'x', '-A'],
    ['delete', 'cm', 'x', '--now', '--grace-period=3'],
    ['delete', 'cm', 'x', '--force', '--grace-period=3'],
    ['delete', 'cm', 'x', '-o', 'yaml'],
    ['delete', 'cm', 'x', '--cascade=bad'],
    ['delete', 'cm', 'x', '--dry-run=bad'],
    ['delete', '-f', file('usage.yaml', [cmDoc('x')]), 'cm/x'],
  ]) {
    const k = await kubectl(args);
    const d = await kdyn(args);
    assert.equal(k.code, 1, `${args.join(' ')}: kubectl ${k.err}`);
    assert.equal(d.code, 2, `${args.join(' ')}: ${d.err}`);
    assert.equal(d.err, `${k.err.replace(/\n$/, '')} (see 'kdyn delete --help')\n`);
  }
  env.server.clearLog();
  const none = await kdyn(['delete']);
  assert.match(none.err, /^error: You must provide one or more resources by argument or filename\. Example resource specifications include: '-f rsrc\.yaml', /);
  assert.deepEqual(env.server.requestLog, []);
});

test('--wait (default): an object with a finalizer is waited for until it is gone; --timeout ends the wait with kubectl\'s error', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const held = () => makeCms([{ name: 'fin', finalizers: ['kdyn.dev/hold'] }, { name: 'plain' }]);
  // The timeout: both tools print the deletion, then the error naming the object still there.
  const r = await same(['delete', 'cm', 'fin', 'plain', '-n', 'del', '--timeout=1s'], held);
  assert.equal(r.out, 'configmap "fin" deleted\nconfigmap "plain" deleted\n');
  assert.equal(r.err, 'error: timed out waiting for the condition on configmaps/fin\n');
  // --wait=false returns at once; the object stays, terminating.
  await same(['delete', 'cm', 'fin', '-n', 'del', '--wait=false'], held);
  assert.ok((await cms().get('fin')).metadata?.deletionTimestamp, 'terminating, held by its finalizer');
  // The finalizer removed while kdyn waits: it returns 0.
  await held();
  env.server.clearLog();
  const run = kdyn(['delete', 'cm', 'fin', '-n', 'del']);
  let settled = false;
  void run.then(() => (settled = true));
  while (!env.server.requestLog.some((e) => e.method === 'GET' && /(^|&)watch=(1|true)(&|$)/.test(e.query))) {
    assert.ok(!settled, 'kdyn ended before it watched');
    await new Promise((res) => setImmediate(res));
  }
  await cms().patch('fin', { metadata: { finalizers: null } } as never, 'merge');
  const done = await run;
  assert.deepEqual([done.code, done.out, done.err], [0, 'configmap "fin" deleted\n', '']);
});

test('a CRD: one warning with its instance count; discovery is stale afterwards for kubectl\'s and kdyn\'s next runs', { skip: !hasKubectl() && 'kubectl not on PATH' }, async () => {
  const crd = simpleCrd({ group: 'gone.kdyn.dev', plural: 'widgets', kind: 'Widget' });
  await client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(crd as never);
  const widgets = client.resource({ group: 'gone.kdyn.dev', version: 'v1', resource: 'widgets' }, { namespaced: true });
  // Established after a turn of the server's clock (no delay configured).
  while (!(await widgets.namespace('del').list({ limit: 1 }).next().then(() => true, () => false))) await new Promise((res) => setImmediate(res));
  for (const [ns, name] of [['del', 'w1'], ['del', 'w2'], ['del2', 'w3']]) await widgets.namespace(ns!).create({ metadata: { name } });
  const cacheDir = join(env.dir, 'shared-cache');
  const shared = ['--cache-dir', cacheDir];
  // Both tools' caches know widgets.
  assert.match((await kubectl(['api-resources', ...shared])).out, /^widgets /m);
  const dry = await kdyn(['delete', 'crd', 'widgets.gone.kdyn.dev', '--dry-run=server', ...shared]);
  assert.equal(dry.err, 'Warning: deleting customresourcedefinition.apiextensions.k8s.io "widgets.gone.kdyn.dev" would also delete its 3 widgets.gone.kdyn.dev objects (in every namespace)\n');
  const r = await kdyn(['delete', 'crd', 'widgets.gone.kdyn.dev', ...shared]);
  assert.deepEqual([r.code, r.out], [0, 'customresourcedefinition.apiextensions.k8s.io "widgets.gone.kdyn.dev" deleted\n']);
  assert.equal(r.err, 'Warning: deleting customresourcedefinition.apiextensions.k8s.io "widgets.gone.kdyn.dev" also deletes its 3 widgets.gone.kdyn.dev objects (in every namespace)\n');
  assert.doesNotMatch((await kubectl(['api-resources', '--cached', ...shared])).out, /^widgets /m, 'kubectl --cached asks the server again');
  const after = await kdyn(['get', 'widgets', '-A', ...shared]);
  assert.equal(after.code, 1);
  assert.equal(after.err, 'error: the server doesn\'t have a resource type "widgets"\n');
});

test('SIGINT: no new DELETE starts, the one in flight finishes and is printed, exit 130', async () => {
  await makeCms(['s1', 's2', 's3', 's4'].map((name) => ({ name })));
  const from = env.server.requestLog.length;
  const held = env.server.faults.add({ method: 'DELETE', path: '/api/v1/namespaces/del/configmaps/s2', delayMs: 300, times: 1 });
  const run = kdynIn(env)(['delete', 'cm', 's1', 's2', 's3', 's4', '-n', 'del', '--concurrency', '1']);
  await until(() => held.hits > 0, 'the second DELETE arrived', run);
  signals.emit('signal', 'SIGINT');
  const r = await run;
  assert.equal(r.code, 130, r.err);
  assert.equal(r.out, 'configmap "s1" deleted\nconfigmap "s2" deleted\n');
  assert.deepEqual(env.server.requestLog.slice(from).filter((e) => e.method === 'DELETE').map((e) => e.path.split('/').pop()), ['s1', 's2']);
  assert.ok(await cms().get('s3'), 's3 was not deleted');
  assert.equal(signals.listenerCount('signal'), 0, 'the handler is removed');
});
