import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startHarness, listFiles, type Harness } from './harness.js';
import { AGGREGATED_ACCEPT } from '../../../src/discovery/aggregated.js';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { DiskStore } from '../../../src/discovery/disk.js';
import { simpleCrd } from '../../support/apiserver/crds.js';

const TTL = 600_000;

describe('CachedDiscovery with aggregated discovery', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discovery: 'aggregated' });
  });
  after(() => h.close());

  test('cold: exactly 2 requests, kubectl Accept header and ?timeout=32s; kubectl layout and combined file written', async () => {
    h.server.clearLog();
    const d = h.discovery();
    const s = await d.snapshot();
    await d.flush();
    const reqs = h.discoveryRequests();
    assert.deepEqual(reqs.map((r) => `${r.method} ${r.path}?${r.query}`).sort(), ['GET /api?timeout=32s', 'GET /apis?timeout=32s']);
    assert.ok(reqs.every((r) => r.accept === AGGREGATED_ACCEPT && r.status === 200));
    assert.equal(d.fresh(), true);
    assert.ok(s.resources.get('v1')!.some((r) => r.name === 'pods'));
    const p = (await d.paths())!;
    const files = listFiles(h.cacheDir);
    assert.ok(files.includes(p.serverGroupsFile.slice(h.cacheDir.length + 1)));
    for (const [gv] of s.resources) {
      const rel = join('discovery', p.kubectlDir.split('/').pop()!, gv, 'serverresources.json');
      if (s.resources.get(gv)!.length) assert.ok(files.includes(rel), rel);
    }
    assert.ok(existsSync(p.combinedFile));
    assert.equal(statSync(p.serverGroupsFile).mode & 0o777, 0o660);
    assert.equal(statSync(p.combinedFile).mode & 0o777, 0o660);
    assert.equal(statSync(join(p.kubectlDir, 'apps')).mode & 0o777, 0o750);
    assert.ok(!files.some((f) => /\.[0-9a-f]{12}$/.test(f)), 'no temp files left');
  });

  test('warm within the TTL: 0 requests, same snapshot', async () => {
    const cold = await h.discovery().snapshot();
    h.server.clearLog();
    const d = h.discovery();
    const warm = await d.snapshot();
    assert.deepEqual(h.discoveryRequests(), []);
    assert.equal(d.fresh(), false);
    assert.deepEqual(warm, cold);
  });

  test('after the TTL: 2 conditional requests answered 304, the cache is renewed without a download', async () => {
    const clock = new FakeClock(Date.now());
    await h.discovery({ clock }).snapshot();
    clock.advance(TTL + 1000);
    h.server.clearLog();
    const d = h.discovery({ clock });
    await d.snapshot();
    await d.flush();
    const reqs = h.discoveryRequests();
    assert.deepEqual(reqs.map((r) => [r.path, r.status]).sort(), [['/api', 304], ['/apis', 304]]);
    assert.ok(reqs.every((r) => r.accept === AGGREGATED_ACCEPT));
    const p = (await d.paths())!;
    // utimes has sub-millisecond rounding: compare to the millisecond.
    assert.ok(Math.abs(statSync(p.combinedFile).mtimeMs - clock.now()) < 1);
    assert.ok(Math.abs(statSync(p.serverGroupsFile).mtimeMs - clock.now()) < 1);
    h.server.clearLog();
    await h.discovery({ clock }).snapshot();
    assert.deepEqual(h.discoveryRequests(), [], 'renewed: fresh again');
  });

  test('a CRD created after caching is found after invalidate(): one refetch, /api answered 304', async () => {
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
    const res = await h.transport.request({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(simpleCrd({ group: 'late.kdyn.io', plural: 'widgets', kind: 'Widget', shortNames: ['kw'] })) });
    assert.equal(res.status, 201);
    const d2 = h.discovery();
    const before = await d2.snapshot();
    assert.equal(before.resources.has('late.kdyn.io/v1'), false, 'cache is still within its TTL');
    h.server.clearLog();
    d2.invalidate();
    const after = await d2.snapshot();
    await d2.flush();
    assert.ok(after.resources.get('late.kdyn.io/v1')!.some((r) => r.name === 'widgets' && r.kind === 'Widget'));
    assert.deepEqual(h.discoveryRequests().map((r) => [r.path, r.status]).sort(), [['/api', 304], ['/apis', 200]]);
    const p = (await d2.paths())!;
    assert.ok(existsSync(join(p.kubectlDir, 'late.kdyn.io', 'v1', 'serverresources.json')));
    h.server.clearLog();
    assert.ok((await h.discovery().snapshot()).resources.has('late.kdyn.io/v1'));
    assert.deepEqual(h.discoveryRequests(), []);
  });

  test('a warm snapshot reads only the combined file, not one file per group-version', async () => {
    const cacheDir = join(h.tmp, 'warm-lookup');
    const d = h.discovery({ cacheDir });
    const cold = await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    // Remove every per-group-version file: a reader that opened them would have to refetch.
    for (const f of listFiles(p.kubectlDir)) if (f.endsWith('serverresources.json')) rmSync(join(p.kubectlDir, f));
    h.server.clearLog();
    const warm = await h.discovery({ cacheDir }).snapshot();
    assert.deepEqual(h.discoveryRequests(), []);
    assert.deepEqual(warm, cold);
  });

  test('--cache-ttl 0: always revalidates', async () => {
    await h.discovery().snapshot();
    h.server.clearLog();
    await h.discovery({ ttlMs: 0 }).snapshot();
    assert.equal(h.discoveryRequests().length, 2);
  });

  test('cachedOnly: zero requests even past the TTL; a clear error without a cache', async () => {
    const clock = new FakeClock(Date.now());
    await h.discovery({ clock }).snapshot();
    clock.advance(10 * TTL);
    h.server.clearLog();
    const s = await h.discovery({ clock }).snapshot({ cachedOnly: true });
    assert.ok(s.resources.has('apps/v1'));
    assert.deepEqual(h.discoveryRequests(), []);
    await assert.rejects(h.discovery({ cacheDir: join(h.tmp, 'empty-cache') }).snapshot({ cachedOnly: true }), /no cached discovery for .* \(a snapshot\(\) without cachedOnly fills it\)$/);
    assert.deepEqual(h.discoveryRequests(), []);
  });

  test('kubectl rewrote its files after kdyn with another group list: they win over the combined file', async () => {
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    const f = join(p.kubectlDir, 'apps', 'v1', 'serverresources.json');
    const doc = JSON.parse(readFileSync(f, 'utf8')) as { resources: Array<{ name: string; shortNames?: string[] }> };
    doc.resources.find((r) => r.name === 'deployments')!.shortNames = ['rewritten-by-kubectl'];
    writeFileSync(f, JSON.stringify(doc));
    dropGroup(p.serverGroupsFile, 'batch');
    const later = new Date(statSync(p.combinedFile).mtimeMs + 5000);
    utimesSync(p.serverGroupsFile, later, later);
    h.server.clearLog();
    const s = await h.discovery().snapshot();
    assert.deepEqual(s.resources.get('apps/v1')!.find((r) => r.name === 'deployments')!.shortNames, ['rewritten-by-kubectl']);
    assert.ok(!s.groups.some((g) => g.name === 'batch'), 'the group list is kubectl\'s');
    assert.deepEqual(h.discoveryRequests(), []);
  });

  test('after kubectl refreshed the layout with the same group list (mtimes in fractions of a millisecond): runs read servergroups.json and the combined file only', async () => {
    const cacheDir = join(h.tmp, 'kubectl-refresh');
    const d = h.discovery({ cacheDir });
    await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    const layout = listFiles(p.kubectlDir);
    /** A new process whose store counts the kubectl-layout files it opens. */
    const run = async () => {
      const opened: string[] = [];
      const store = (root: string) => new (class extends DiskStore {
        override read(path: string) {
          if (path.startsWith(p.kubectlDir)) opened.push(path);
          return super.read(path);
        }
      })(root, silentLogger);
      const run = h.discovery({ cacheDir, store });
      const snap = await run.snapshot();
      await run.flush();
      return { opened: opened.length, snap };
    };
    // kubectl rewrites every file (temp file, rename); the file system dates them to the nanosecond.
    const refreshedAt = Math.floor(Date.now() / 1000) + 5;
    kubectlRewrite(p.kubectlDir, layout, refreshedAt, 657_449_123);
    h.server.clearLog();
    for (let i = 0; i < 3; i++) {
      const r = await run();
      assert.equal(r.opened, 1, `run ${i + 1} after the refresh reads servergroups.json only (issue 21: not the ${layout.length} files)`);
      assert.ok(r.snap.resources.has('apps/v1'));
    }
    // kubectl changes the group list: noticed, the layout read once, then the combined file alone.
    const apps = join(p.kubectlDir, 'apps', 'v1', 'serverresources.json');
    const doc = JSON.parse(readFileSync(apps, 'utf8')) as { resources: Array<{ name: string; shortNames?: string[] }> };
    doc.resources.find((r) => r.name === 'deployments')!.shortNames = ['changed-by-kubectl'];
    writeFileSync(apps, JSON.stringify(doc));
    dropGroup(p.serverGroupsFile, 'batch');
    kubectlRewrite(p.kubectlDir, ['servergroups.json'], refreshedAt + 2, 123_456_789);
    const changed = await run();
    assert.ok(changed.opened >= layout.length - 2, `the layout read: ${changed.opened} files`);
    assert.deepEqual(changed.snap.resources.get('apps/v1')!.find((r) => r.name === 'deployments')!.shortNames, ['changed-by-kubectl']);
    assert.equal((await run()).opened, 0);
    assert.deepEqual(h.discoveryRequests(), [], 'every answer came from the disk');
  });
});

/** kubectl's servergroups.json without one group (as kubectl writes it after the group is gone). */
function dropGroup(serverGroupsFile: string, name: string): void {
  const doc = JSON.parse(readFileSync(serverGroupsFile, 'utf8')) as { groups: Array<{ name: string }> };
  const n = doc.groups.length;
  doc.groups = doc.groups.filter((g) => g.name !== name);
  assert.equal(doc.groups.length, n - 1, `servergroups.json lists ${name}`);
  writeFileSync(serverGroupsFile, JSON.stringify(doc));
}

/**
 * What kubectl's writeCachedFile does to each file (temp file, rename), dated `seconds` plus
 * `nanos` as the file system dates kubectl's writes: to the nanosecond (touch(1) sets that; utimes
 * from Node keeps microseconds at most).
 */
function kubectlRewrite(dir: string, files: string[], seconds: number, nanos: number): void {
  for (const rel of files) {
    const path = join(dir, rel);
    writeFileSync(`${path}.tmp`, readFileSync(path));
    renameSync(`${path}.tmp`, path);
    execFileSync('touch', ['-m', '-d', `@${seconds}.${String(nanos).padStart(9, '0')}`, path]);
    assert.equal(statSync(path, { bigint: true }).mtimeNs % 1_000_000_000n, BigInt(nanos), 'dated to the nanosecond, as kubectl\'s files are');
  }
}

describe('CachedDiscovery safety', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discovery: 'aggregated' });
  });
  after(() => h.close());

  test('corrupted, truncated and wrongly typed cache files are ignored and replaced', async () => {
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    const good = readFileSync(p.combinedFile, 'utf8');
    for (const bad of [good.slice(0, 100), good.slice(0, -10), '\u0000\u0001\u0002', '{"format":"kdyn.discovery-cache/v2","mode":"aggregated","api":7}', '[]']) {
      writeFileSync(p.combinedFile, bad);
      writeFileSync(p.serverGroupsFile, bad); // kubectl's index is broken too: nothing usable on disk
      h.server.clearLog();
      const d2 = h.discovery();
      const s = await d2.snapshot();
      await d2.flush();
      assert.ok(s.resources.get('v1')!.some((r) => r.name === 'pods'));
      assert.equal(h.discoveryRequests().length, 2, JSON.stringify(bad.slice(0, 20)));
      assert.equal(readFileSync(p.combinedFile, 'utf8'), good, 'replaced');
      assert.equal((JSON.parse(readFileSync(p.serverGroupsFile, 'utf8')) as { kind: string }).kind, 'APIGroupList');
    }
  });

  test('a truncated kubectl file (no combined file) is ignored and refetched', async () => {
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    writeFileSync(p.combinedFile, 'garbage');
    const f = join(p.kubectlDir, 'apps', 'v1', 'serverresources.json');
    writeFileSync(f, readFileSync(f, 'utf8').slice(0, 50));
    h.server.clearLog();
    const d2 = h.discovery();
    const s = await d2.snapshot();
    await d2.flush();
    assert.ok(s.resources.get('apps/v1')!.some((r) => r.name === 'deployments'));
    assert.deepEqual(h.discoveryRequests().map((r) => r.path), ['/apis/apps/v1']);
    assert.ok(JSON.parse(readFileSync(f, 'utf8')));
  });

  test('an unwritable cache directory: no caching, one warning at -v=1, never a failure', async () => {
    const file = join(h.tmp, 'a-regular-file');
    writeFileSync(file, 'x');
    const { memoryLogger } = await import('./harness.js');
    const quiet = memoryLogger(0);
    const s = await h.discovery({ cacheDir: file, logger: quiet }).snapshot();
    assert.ok(s.resources.has('apps/v1'));
    const loud = memoryLogger(1);
    const d = h.discovery({ cacheDir: file, logger: loud });
    await d.snapshot();
    await d.flush();
    assert.equal(quiet.text(), '');
    assert.equal(loud.text().trim().split('\n').length, 1, loud.text());
    assert.match(loud.text(), /discovery cache disabled: cannot write/);
  });

  test('hostile group and version names are never used as paths', async () => {
    const evil = {
      kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {},
      items: [
        ...['../../../escaped', 'a/b', 'nul\u0000.io', '..'].map((name) => ({ metadata: { name }, versions: [{ version: 'v1', freshness: 'Current', resources: [{ resource: 'things', responseKind: { group: '', version: '', kind: 'Thing' }, scope: 'Cluster', singularResource: 'thing', verbs: ['get'] }] }] })),
        { metadata: { name: 'ok.kdyn.io' }, versions: [{ version: '../../../../v1', freshness: 'Current', resources: [] }, { version: 'v1', freshness: 'Current', resources: [{ resource: 'goods', responseKind: { group: '', version: '', kind: 'Good' }, scope: 'Cluster', singularResource: 'good', verbs: ['get'] }] }] },
      ],
    };
    const fault = h.server.faults.add({ path: '/apis', status: 200, headers: { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }, body: JSON.stringify(evil) });
    try {
      const cacheDir = join(h.tmp, 'nested', 'root');
      mkdirSync(cacheDir, { recursive: true });
      const d = h.discovery({ cacheDir, ttlMs: 0 });
      const s = await d.snapshot();
      await d.flush();
      assert.ok(fault.hits >= 1);
      assert.deepEqual(s.groups.map((g) => g.name).filter((n) => n !== ''), ['ok.kdyn.io']);
      assert.deepEqual(s.groups.find((g) => g.name === 'ok.kdyn.io')!.versions, ['v1']);
      assert.equal(s.failures.length, 5);
      assert.deepEqual(listFiles(join(h.tmp, 'nested')).filter((f) => !f.startsWith('root/')), [], 'nothing outside the root');
      assert.ok(listFiles(cacheDir).every((f) => /^(discovery|kdyn)\/[^/]+\/(servergroups\.json|discovery\.json|v1\/serverresources\.json|ok\.kdyn\.io\/v1\/serverresources\.json)$/.test(f)), listFiles(cacheDir).join('\n'));
    } finally {
      h.server.faults.clear();
    }
  });

  test('credentials never reach the cache', async () => {
    const d = h.discovery({ cacheDir: join(h.tmp, 'cred-check'), ttlMs: 0 });
    await d.snapshot();
    await d.flush();
    const files = listFiles(join(h.tmp, 'cred-check'));
    assert.ok(files.length > 5);
    for (const f of files) {
      const text = readFileSync(join(h.tmp, 'cred-check', f), 'utf8');
      assert.ok(!text.includes(h.server.token), f);
      assert.ok(!/bearer /i.test(text), f);
    }
  });
});

describe('CachedDiscovery with legacy discovery', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discovery: 'legacy', extraGroups: 40 });
  });
  after(() => h.close());

  test('fan-out over every group-version; a 503 group-version is reported, the rest arrive; the failure is not cached', async () => {
    h.server.faults.add({ path: '/apis/apps/v1', status: 503, body: 'service unavailable' });
    try {
      h.server.clearLog();
      const d = h.discovery();
      const s = await d.snapshot();
      await d.flush();
      const paths = h.discoveryRequests().map((r) => r.path);
      assert.ok(paths.includes('/api') && paths.includes('/apis') && paths.includes('/api/v1'));
      const gvCount = s.groups.reduce((n, g) => n + g.versions.length, 0);
      // Each group-version once (the transport itself retries a 503, so apps/v1 may appear more than once).
      assert.equal(new Set(paths).size, 2 + gvCount);
      assert.equal(paths.filter((x) => x !== '/apis/apps/v1').length, 1 + gvCount);
      assert.equal(s.resources.has('apps/v1'), false);
      assert.deepEqual(s.failures.map((f) => [f.groupVersion, f.reason]), [['apps/v1', 'failed']]);
      assert.match(s.failures[0]!.message, /apps\/v1: the server is currently unable to handle the request/);
      assert.ok(s.resources.has('batch/v1'));
      const p = (await d.paths())!;
      assert.equal(existsSync(join(p.kubectlDir, 'apps', 'v1', 'serverresources.json')), false);
      assert.ok(existsSync(join(p.kubectlDir, 'batch', 'v1', 'serverresources.json')));
    } finally {
      h.server.faults.clear();
    }
    // Warm: only the group-version that failed is asked for again.
    h.server.clearLog();
    const s2 = await h.discovery().snapshot();
    assert.deepEqual(h.discoveryRequests().map((r) => r.path), ['/apis/apps/v1']);
    assert.ok(s2.resources.has('apps/v1'));
    assert.deepEqual(s2.failures, []);
  });
});
