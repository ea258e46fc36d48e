/**
 * `kdyn api-resources` as a child process against the local API server, next to kubectl v1.32
 * (skipped where kubectl is not on PATH): identical output, request counts, and a shared cache.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, utimesSync, statSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { simpleCrd } from '../support/apiserver/crds.js';
import { rawRequest } from './raw-request.js';
import { AGGREGATED_ACCEPT } from '../../src/discovery/aggregated.js';

/** Each tool runs with its own cache dir; HOME is the test's temp dir. */
function runTool(tool: 'kdyn' | 'kubectl', args: string[], env: { home: string; kubeconfig: string; cacheDir: string }): Promise<Run> {
  const argv = [...args, '--kubeconfig', env.kubeconfig, '--cache-dir', env.cacheDir];
  const opts = { env: { PATH: process.env.PATH, HOME: env.home } };
  return tool === 'kdyn' ? runKdyn(argv, opts) : runCommand('kubectl', argv, opts);
}

function discoveryRequests(s: LocalApiServer, agent: string) {
  return s.requestLog.filter((e) => e.userAgent.startsWith(agent) && (e.path === '/api' || e.path === '/apis' || /^\/apis?\/[^/]+\/[^/]+$/.test(e.path) || e.path === '/api/v1'));
}

/** Every HOME setup() made, removed after the file's tests. */
const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function setup(server: LocalApiServer) {
  const home = mkdtempSync(join(tmpdir(), 'kdyn-e2e-ar-'));
  homes.push(home);
  const kubeconfig = join(home, 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  return {
    home,
    kubeconfig,
    kdyn: { home, kubeconfig, cacheDir: join(home, 'kdyn-cache') },
    kubectl: { home, kubeconfig, cacheDir: join(home, 'kubectl-cache') },
  };
}

const FLAG_SETS: string[][] = [
  [],
  ['-o', 'wide'],
  ['-o', 'name'],
  ['--no-headers'],
  ['-o', 'wide', '--no-headers'],
  ['--sort-by=name'],
  ['--sort-by=kind'],
  ['--namespaced=false'],
  ['--namespaced=true'],
  ['--api-group=apps'],
  ['--api-group='],
  ['--api-group=rbac.authorization.k8s.io', '-o', 'wide'],
  ['--verbs=list,watch'],
  ['--verbs=create', '--verbs=delete', '-o', 'name'],
  ['--categories=all'],
  ['--namespaced=false', '--sort-by=kind', '-o', 'wide', '--no-headers'],
  ['--api-group=does.not.exist'],
];

describe('kdyn api-resources (aggregated discovery)', () => {
  let server: LocalApiServer;
  let env: ReturnType<typeof setup>;
  before(async () => {
    server = await startServer({ seed: 'demo', discovery: 'aggregated', tls: true });
    env = setup(server);
  });
  after(() => server.stop());

  test('cold: 2 discovery requests; warm: revalidated as kubectl does, 2 conditional requests answered 304, no file rewritten', async () => {
    server.clearLog();
    const cold = await runTool('kdyn', ['api-resources'], env.kdyn);
    assert.equal(cold.code, 0, cold.err);
    assert.match(cold.out, /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\n/);
    assert.deepEqual(discoveryRequests(server, 'kdyn').map((r) => `${r.path} ${r.status}`).sort(), ['/api 200', '/apis 200']);
    const files = listTree(env.kdyn.cacheDir);
    const inodes = () => files.map((f) => `${f} ${statSync(f).ino}`);
    const before = inodes();
    server.clearLog();
    const warm = await runTool('kdyn', ['api-resources'], env.kdyn);
    assert.equal(warm.out, cold.out);
    assert.deepEqual(discoveryRequests(server, 'kdyn').map((r) => `${r.path} ${r.status}`).sort(), ['/api 304', '/apis 304']);
    assert.deepEqual(discoveryRequests(server, 'kdyn').map((r) => r.accept === AGGREGATED_ACCEPT), [true, true]);
    assert.deepEqual(inodes(), before, 'unchanged: no cache file rewritten (only the mtimes renewed)');
    assert.deepEqual(listTree(env.kdyn.cacheDir), files);
    server.clearLog();
    await runTool('kdyn', ['get', 'deployments', '-A'], env.kdyn);
    assert.deepEqual(discoveryRequests(server, 'kdyn'), [], 'a warm get of a known type still asks no discovery');
  });

  test('a CRD created, then deleted, between two warm runs: listed, then gone; only the changed files rewritten', async () => {
    const fresh = setup(server);
    assert.equal((await runTool('kdyn', ['api-resources'], fresh.kdyn)).code, 0);
    const files = listTree(fresh.kdyn.cacheDir);
    const ino = new Map(files.map((f) => [f, statSync(f).ino]));
    const crd = simpleCrd({ group: 'fresh.kdyn.io', plural: 'gadgets', kind: 'Gadget', shortNames: ['gd'] });
    assert.equal(await rawRequest(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), 201);
    try {
      server.clearLog();
      const shown = await runTool('kdyn', ['api-resources', '--api-group', 'fresh.kdyn.io'], fresh.kdyn);
      assert.equal(shown.code, 0, shown.err);
      assert.match(shown.out, /^gadgets +gd +fresh\.kdyn\.io\/v1 +true +Gadget$/m);
      assert.deepEqual(discoveryRequests(server, 'kdyn').map((r) => `${r.path} ${r.status}`).sort(), ['/api 304', '/apis 200']);
      const rewritten = files.filter((f) => statSync(f).ino !== ino.get(f)).map((f) => f.slice(fresh.kdyn.cacheDir.length + 1).replace(/\/[^/]*_\d+\//, '/HOST/'));
      assert.deepEqual(rewritten.sort(), ['discovery/HOST/servergroups.json', 'kdyn/HOST/discovery.json'], 'the unchanged group-versions are not rewritten');
      assert.ok(listTree(fresh.kdyn.cacheDir).some((f) => f.endsWith('fresh.kdyn.io/v1/serverresources.json')));
    } finally {
      assert.equal(await rawRequest(server, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.fresh.kdyn.io'), 200);
    }
    const gone = await runTool('kdyn', ['api-resources'], fresh.kdyn);
    assert.doesNotMatch(gone.out, /gadgets/);
    const cached = await runTool('kdyn', ['api-resources', '--cached'], fresh.kdyn);
    assert.doesNotMatch(cached.out, /gadgets/, 'the cache holds the revalidated answer');
  });

  test('--cached: zero requests; a clear error when there is no cache', async () => {
    await runTool('kdyn', ['api-resources'], env.kdyn);
    server.clearLog();
    const r = await runTool('kdyn', ['api-resources', '--cached'], env.kdyn);
    assert.equal(r.code, 0);
    assert.match(r.out, /deployments/);
    assert.equal(r.err, '');
    assert.deepEqual(server.requestLog.filter((e) => e.userAgent.startsWith('kdyn')), []);
    // Past the TTL: still zero requests, and said (the list may be stale).
    const past = new Date(Date.now() - 11 * 60_000);
    for (const f of listTree(env.kdyn.cacheDir)) utimesSync(f, past, past);
    const old = await runTool('kdyn', ['api-resources', '--cached'], env.kdyn);
    assert.equal(old.code, 0);
    assert.equal(old.out, r.out);
    assert.equal(old.err, 'Warning: the discovery cache is past its TTL (--cache-ttl) or was invalidated after a change of CRDs or APIServices: this list may be stale (run without --cached to refresh it)\n');
    assert.deepEqual(server.requestLog.filter((e) => e.userAgent.startsWith('kdyn')), []);
    const none = await runTool('kdyn', ['api-resources', '--cached'], { ...env.kdyn, cacheDir: join(env.home, 'nothing-here') });
    assert.equal(none.code, 1);
    assert.equal(none.out, '');
    assert.match(none.err, /^error: no cached discovery for https:\/\/127\.0\.0\.1:\d+ in .*nothing-here.* \(run once without --cached to fill it\)\n$/);
  });

  test('an unwritable cache directory: output as usual, exit 0, one warning with -v=1', async () => {
    const file = join(env.home, 'not-a-dir');
    writeFileSync(file, 'x');
    const quiet = await runTool('kdyn', ['api-resources'], { ...env.kdyn, cacheDir: file });
    assert.equal(quiet.code, 0);
    assert.equal(quiet.err, '');
    assert.match(quiet.out, /deployments/);
    const loud = await runTool('kdyn', ['api-resources', '-v=1'], { ...env.kdyn, cacheDir: file });
    assert.equal(loud.code, 0);
    assert.equal(loud.err.split('\n').filter((l) => /discovery cache disabled/.test(l)).length, 1, loud.err);
  });

  test('output identical to kubectl api-resources for every flag combination', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    for (const flags of FLAG_SETS) {
      const k = await runTool('kubectl', ['api-resources', ...flags], env.kubectl);
      const d = await runTool('kdyn', ['api-resources', ...flags], env.kdyn);
      assert.equal(k.code, 0, `kubectl ${flags.join(' ')}: ${k.err}`);
      assert.equal(d.code, 0, `kdyn ${flags.join(' ')}: ${d.err}`);
      assert.equal(d.out, k.out, `api-resources ${flags.join(' ')}`);
    }
  });

  test("kubectl reads the cache kdyn wrote, and kdyn reads the cache kubectl wrote", async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    const fresh = setup(server);
    const k = await runTool('kubectl', ['api-resources'], fresh.kubectl);
    const d = await runTool('kdyn', ['api-resources'], fresh.kdyn);
    assert.equal(d.out, k.out);
    // Swap caches: each tool reads the other's, without a request.
    server.clearLog();
    const kOnKdyn = await runTool('kubectl', ['api-resources', '--cached', '-o', 'wide'], fresh.kdyn);
    const dOnKubectl = await runTool('kdyn', ['api-resources', '--cached', '-o', 'wide'], fresh.kubectl);
    const reference = await runTool('kubectl', ['api-resources', '--cached', '-o', 'wide'], fresh.kubectl);
    assert.equal(kOnKdyn.code, 0, kOnKdyn.err);
    assert.equal(dOnKubectl.code, 0, dOnKubectl.err);
    assert.equal(kOnKdyn.out, reference.out);
    assert.equal(dOnKubectl.out, reference.out);
    assert.deepEqual(discoveryRequests(server, ''), []);
  });

  test('after kubectl refreshed the shared cache, one kdyn run reads its layout and the next ones only kdyn\'s combined file', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    const fresh = setup(server);
    const shared = { ...fresh.kdyn, cacheDir: join(fresh.home, 'shared-cache') };
    assert.equal((await runTool('kdyn', ['get', 'namespaces', '-o', 'name'], shared)).code, 0);
    const k = await runTool('kubectl', ['api-resources'], shared); // rewrites every layout file
    assert.equal(k.code, 0, k.err);
    const first = await runTool('kdyn', ['get', 'namespaces', '-o', 'name'], shared);
    assert.equal(first.code, 0, first.err);
    // A run that still took kubectl's layout for the newer answer would miss these files and ask the server.
    const layout = join(shared.cacheDir, 'discovery');
    const perGroup = listTree(layout).filter((f) => f.endsWith('serverresources.json'));
    assert.ok(perGroup.length > 5);
    for (const f of perGroup) rmSync(f);
    server.clearLog();
    for (let i = 0; i < 2; i++) {
      const warm = await runTool('kdyn', ['get', 'namespaces', '-o', 'name'], shared);
      assert.equal(warm.out, first.out);
    }
    assert.deepEqual(discoveryRequests(server, 'kdyn').filter((r) => r.path !== '/api/v1/namespaces'), []);
  });
});

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

describe('kdyn api-resources (legacy discovery)', () => {
  let server: LocalApiServer;
  let env: ReturnType<typeof setup>;
  before(async () => {
    server = await startServer({ seed: 'demo', discovery: 'legacy', tls: true });
    env = setup(server);
  });
  after(() => server.stop());

  test('output identical to kubectl', async (t) => {
    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    for (const flags of [[], ['-o', 'wide'], ['--sort-by=kind'], ['--namespaced=false', '-o', 'name']]) {
      const k = await runTool('kubectl', ['api-resources', ...flags], env.kubectl);
      const d = await runTool('kdyn', ['api-resources', ...flags], env.kdyn);
      assert.equal(d.out, k.out, flags.join(' '));
    }
  });

  test('a failing group-version (503): every other row, one warning, exit 0; --strict exits 1', async () => {
    server.faults.add({ path: '/apis/apps/v1', status: 503, body: 'service unavailable' });
    try {
      const cacheDir = join(env.home, 'failing-cache');
      const r = await runTool('kdyn', ['api-resources', '--cache-ttl', '0'], { ...env.kdyn, cacheDir });
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.out, /^deployments /m);
      assert.match(r.out, /^cronjobs +cj +batch\/v1 /m);
      assert.equal(r.err, "Warning: couldn't get resource list for apps/v1: the server is currently unable to handle the request\n");
      const strict = await runTool('kdyn', ['api-resources', '--strict', '--cache-ttl', '0'], { ...env.kdyn, cacheDir });
      assert.equal(strict.code, 1);
      assert.equal(strict.out, r.out);
      assert.match(strict.err, /^Warning: couldn't get resource list for apps\/v1: .*\nerror: unable to retrieve the complete list of server APIs: 1 group-version\(s\) failed or stale\n$/);
    } finally {
      server.faults.clear();
    }
  });
});
