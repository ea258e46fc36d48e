/**
 * The discovery cache kdyn shares with kubectl, on a real kube-apiserver: what one tool writes the
 * other uses without asking the server, in both directions, and a warm kdyn run after kubectl
 * rewrote the layout reads kdyn's one combined file, not kubectl's whole layout (issue 21: the
 * combined file was dated to the layout's mtime truncated to milliseconds, so the layout always
 * looked newer and every run re-read every serverresources.json).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KDYN, runCommand } from '../support/cli.js';
import { HAS_KUBECTL, NO_KUBECTL, SKIP_REAL, startRealEnv, type RealEnv, type Run } from './real-helpers.js';
import { installCrd, widgetsCrd } from './crd-fixtures.js';

// strace must be installed and allowed to trace (a container without CAP_SYS_PTRACE refuses it).
const HAS_STRACE = spawnSync('strace', ['-f', '-qq', '-e', 'trace=openat', '-o', '/dev/null', 'true'], { stdio: 'ignore' }).status === 0;
const NO_STRACE = 'strace is missing or may not trace here: the count of cache files a run opens did not run (.ci/run installs it)';

/** The discovery requests (`GET /api`, `GET /apis`, `GET /apis/G/V`) a `-v=6` run logged. */
function discoveryRequests(run: Run): string[] {
  return run.err.split('\n').filter((l) => / GET https:\/\/[^ ]+\/(api|apis)(\/[^/?]+\/[^/?]+)?\?timeout=/.test(l));
}

describe('the discovery cache shared with kubectl, on a real kube-apiserver', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let ns: string;
  let serial = 0;
  /** A HOME of its own (a cold cache) for each test. */
  const home = () => `home-shared-${++serial}`;
  before(async () => {
    env = await startRealEnv();
    ns = await env.namespace('cache');
    await env.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'one' }, data: { k: 'v' } });
  });
  after(() => env?.stop());

  test('kdyn first: kubectl then answers from the layout kdyn wrote, with no discovery request', async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const h = home();
    const cold = await env.kdyn(['get', 'cm', '-n', ns, '-v=6'], { home: h });
    assert.equal(cold.code, 0, cold.err);
    assert.equal(discoveryRequests(cold).length, 2, `kdyn's cold run fetches /api and /apis:\n${cold.err}`);
    const c = await env.kubectl(['get', 'cm', '-n', ns, '-v=6'], { home: h });
    assert.equal(c.code, 0, c.err);
    assert.deepEqual(discoveryRequests(c), []);
    // kubectl's cache-only view of what kdyn wrote is what a live kubectl sees.
    const [cached, live] = await Promise.all([env.kubectl(['api-resources', '--cached'], { home: h }), env.kubectl(['api-resources'], { home: home() })]);
    assert.equal(cached.code, 0, cached.err);
    assert.equal(cached.out, live.out);
  });

  test('kubectl first: kdyn then answers from kubectl\'s layout, with no discovery request', async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const h = home();
    const c = await env.kubectl(['api-resources'], { home: h });
    assert.equal(c.code, 0, c.err);
    const k = await env.kdyn(['get', 'cm', '-n', ns, '-v=6'], { home: h });
    assert.equal(k.code, 0, k.err);
    assert.match(k.out, /^NAME +DATA +AGE\none +1 /);
    assert.deepEqual(discoveryRequests(k), []);
    const cached = await env.kdyn(['api-resources', '--cached'], { home: h });
    assert.equal(cached.code, 0, cached.err);
    assert.equal(cached.out, c.out);
  });

  test('a CRD created after both were warm: kdyn refetches once, and kubectl then finds it in the cache kdyn rewrote', async (t) => {
    if (!HAS_KUBECTL) return t.skip(NO_KUBECTL);
    const h = home();
    assert.equal((await env.kubectl(['get', 'cm', '-n', ns], { home: h })).code, 0);
    assert.equal((await env.kdyn(['get', 'cm', '-n', ns], { home: h })).code, 0);
    await installCrd(env, widgetsCrd('late.kdyn.dev', 'Gadget', 'gd'));
    await env.create(`/apis/late.kdyn.dev/v1/namespaces/${ns}/gadgets`, { apiVersion: 'late.kdyn.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3 } });
    const k = await env.kdyn(['get', 'gadgets', '-n', ns, '-v=6'], { home: h });
    assert.equal(k.code, 0, k.err);
    assert.match(k.out, /^NAME +SIZE +COLOR +AGE\ng1 +3 /);
    assert.equal(discoveryRequests(k).length, 2, `one refetch of /api and /apis:\n${k.err}`);
    const c = await env.kubectl(['get', 'gadgets', '-n', ns, '-o', 'name', '-v=6'], { home: h });
    assert.equal(c.code, 0, c.err);
    assert.equal(c.out, 'gadget.late.kdyn.dev/g1\n');
    assert.deepEqual(discoveryRequests(c), []);
  });

  test('kdyn get, then kubectl api-resources rewrites the layout: warm kdyn runs open none of its serverresources.json', {
    skip: !HAS_KUBECTL ? NO_KUBECTL : !HAS_STRACE ? NO_STRACE : false,
  }, async () => {
    const h = home();
    assert.equal((await env.kdyn(['get', 'ns'], { home: h })).code, 0);
    await new Promise((r) => setTimeout(r, 1_500)); // kubectl's refresh comes later, as in the sequence
    // kubectl refreshes before every kdyn run: the group list is unchanged, so kdyn reads servergroups.json
    // (to see that) and its combined file, never the layout's 1 + N files.
    for (let run = 1; run <= 3; run++) {
      assert.equal((await env.kubectl(['api-resources'], { home: h })).code, 0);
      const warm = await openedCacheFiles(env, h, ['get', 'ns']);
      assert.deepEqual(warm.layout.filter((f) => f.endsWith('serverresources.json')), [], `warm run ${run} right after kubectl's refresh`);
      assert.ok(warm.layout.length <= 1, `run ${run} opened ${warm.layout.join(', ')}`);
      assert.ok(warm.combined.length >= 1, `warm run ${run} reads kdyn's combined file`);
    }
  });
});

describe('discovery stays fresh after CRD changes, on a real kube-apiserver (issue 34)', { skip: SKIP_REAL ? SKIP_REAL : !HAS_KUBECTL ? NO_KUBECTL : false }, () => {
  let env: RealEnv;
  let serial = 0;
  before(async () => {
    env = await startRealEnv();
  });
  after(() => env?.stop());

  /**
   * Until kube-apiserver's aggregated discovery lists (or no longer lists) `plural` in `group`, as a
   * kubectl with a HOME of its own sees it (kubectl always refetches): the server publishes a CRD a
   * moment after it is Established, and removes it a moment after it is deleted.
   */
  async function untilDiscovered(group: string, plural: string, present: boolean): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await env.kubectl(['api-resources', '--api-group', group, '-o', 'name'], { home: 'home-watcher' });
      if (r.out.split('\n').includes(`${plural}.${group}`) === present) return;
      if (Date.now() > deadline) throw new Error(`${plural}.${group} still ${present ? 'not ' : ''}discovered after 60 s`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  test('a CRD created, then deleted, by kubectl between two warm kdyn runs: kdyn api-resources lists it, then no longer', async () => {
    const h = `home-fresh-${++serial}`;
    for (let i = 0; i < 2; i++) assert.equal((await env.kdyn(['api-resources'], { home: h })).code, 0); // warm
    const file = join(env.dir, 'fresh-crd.json');
    writeFileSync(file, JSON.stringify(widgetsCrd('fresh.kdyn.dev', 'Gizmo', 'gz')));
    const created = await env.kubectl(['create', '-f', file], { home: h });
    assert.equal(created.code, 0, created.err);
    await untilDiscovered('fresh.kdyn.dev', 'gizmos', true);
    const shown = await env.kdyn(['api-resources', '--api-group', 'fresh.kdyn.dev', '-v=6'], { home: h });
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /^gizmos +gz +fresh\.kdyn\.dev\/v1 +true +Gizmo$/m);
    assert.equal(discoveryRequests(shown).length, 2, `revalidated with /api and /apis:\n${shown.err}`);
    const deleted = await env.kubectl(['delete', 'crd', 'gizmos.fresh.kdyn.dev'], { home: h });
    assert.equal(deleted.code, 0, deleted.err);
    await untilDiscovered('fresh.kdyn.dev', 'gizmos', false);
    const gone = await env.kdyn(['api-resources'], { home: h });
    assert.equal(gone.code, 0, gone.err);
    assert.doesNotMatch(gone.out, /fresh\.kdyn\.dev/);
    assert.match(gone.out, /^deployments +deploy +apps\/v1 /m);
  });

  test('a CRD created by kdyn apply: the next kubectl api-resources --cached and kdyn types --all show it', async () => {
    const h = `home-fresh-${++serial}`;
    assert.equal((await env.kdyn(['api-resources'], { home: h })).code, 0);
    assert.equal((await env.kubectl(['api-resources'], { home: h })).code, 0); // both warm, one shared cache
    const file = join(env.dir, 'applied-crd.json');
    writeFileSync(file, JSON.stringify(widgetsCrd('applied.kdyn.dev', 'Doohickey', 'dh')));
    const applied = await env.kdyn(['apply', '-f', file], { home: h });
    assert.equal(applied.code, 0, applied.err);
    await untilDiscovered('applied.kdyn.dev', 'doohickeys', true);
    const cached = await env.kubectl(['api-resources', '--cached', '--api-group', 'applied.kdyn.dev'], { home: h });
    assert.equal(cached.code, 0, cached.err);
    assert.match(cached.out, /^doohickeys +dh +applied\.kdyn\.dev\/v1 +true +Doohickey$/m);
    // kube-apiserver publishes a new CRD's OpenAPI v3 a moment after discovery lists it; until then
    // `kdyn types` says so in one line (as `kubectl explain` fails then). Wait for the server, not kdyn.
    const deadline = Date.now() + 60_000;
    while (!(await env.kubectl(['get', '--raw', '/openapi/v3'], { home: h })).out.includes('"apis/applied.kdyn.dev/v1"')) {
      if (Date.now() > deadline) throw new Error('/openapi/v3 still lists no apis/applied.kdyn.dev/v1 after 60 s');
      await new Promise((res) => setTimeout(res, 200));
    }
    const types = await env.kdyn(['types', '--all', 'applied.kdyn.dev'], { home: h });
    assert.equal(types.code, 0, types.err);
    assert.match(types.out, /^export interface Doohickey \{$/m);
  });
});

/** The cache files `kdyn args` opened (strace -f -e openat), split into kubectl's layout and kdyn's own. */
async function openedCacheFiles(env: RealEnv, home: string, args: string[]): Promise<{ layout: string[]; combined: string[] }> {
  const trace = join(env.dir, `${home}.strace`);
  const r = await runCommand('strace', ['-f', '-qq', '-e', 'trace=openat', '-o', trace, process.execPath, KDYN, ...args], {
    env: env.toolEnv(home),
    cwd: env.dir,
  });
  assert.equal(r.code, 0, r.err);
  const opened = readFileSync(trace, 'utf8').split('\n').filter((l) => !l.includes('ENOENT')).map((l) => /openat\([^,]+, "([^"]+)"/.exec(l)?.[1]).filter((p): p is string => p !== undefined);
  const cache = join(env.dir, home, '.kube', 'cache');
  return {
    layout: opened.filter((p) => p.startsWith(join(cache, 'discovery') + '/')),
    combined: opened.filter((p) => p.startsWith(join(cache, 'kdyn') + '/')),
  };
}
