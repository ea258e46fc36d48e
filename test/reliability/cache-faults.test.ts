/**
 * Reliability suite 2, cache faults (issue 13): the discovery cache's files damaged in every way a
 * disk, a crash or another tool can leave them (truncated, empty, not JSON, wrongly shaped,
 * unreadable, a directory where a file should be and the other way round), a read-only and a full
 * cache directory, and 16 kdyn processes at once on an empty cache and racing the detached layout
 * writer. Each case: correct output, exit 0, no torn file afterwards (every cache file parses), no
 * temp file or staging directory left, at most one warning (at -v=1, where cache warnings show).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCacheIntact, assertNoStack, errLines, LEFTOVER, NOBODY, nobodyCannotRunNode, openTo, POOL, startRelEnv, type RelEnv, type Run } from './harness.js';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { runKdyn } from '../support/cli.js';

const IS_ROOT = process.getuid?.() === 0;
const GET = ['get', 'configmaps', '-n', 'demo', '-o', 'name'];
const API = ['api-resources', '-o', 'name'];

let env: RelEnv;
let host: string;
/** A complete warm cache (filled by one run), copied for each case. */
let pristine: string;
const expected: Record<string, string> = {};
let mountsWork = false;
const mounts: string[] = [];

before(async () => {
  env = await startRelEnv();
  host = new URL(env.server.url).host.replace(/:/g, '_');
  pristine = join(env.dir, 'pristine');
  for (const [name, args] of [['get', GET], ['api', API]] as const) {
    const r = await env.kdyn([...args, '--cache-dir', pristine]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.length > 0);
    expected[name] = r.out;
  }
  assert.ok(expected.get!.includes('configmap/app-config'));
  if (IS_ROOT) {
    const probe = join(env.dir, 'probe-mount');
    mkdirSync(probe);
    mountsWork = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
    if (mountsWork) spawnSync('umount', [probe]);
  }
});
after(async () => {
  for (const m of mounts) spawnSync('umount', ['-l', m]);
  await env.stop();
});

let caches = 0;
/** A copy of the warm cache (timestamps kept: still fresh). */
function warmCopy(): string {
  const dir = join(env.dir, `cache-${++caches}`);
  cpSync(pristine, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

const combined = (root: string) => join(root, 'kdyn', host, 'discovery.json');
const groups = (root: string) => join(root, 'discovery', host, 'servergroups.json');
const coreV1 = (root: string) => join(root, 'discovery', host, 'v1', 'serverresources.json');
const appsV1 = (root: string) => join(root, 'discovery', host, 'apps', 'v1', 'serverresources.json');

/** kdyn ARGS on `cache` at -v=1: exit 0, the expected output, at most one (warning) line, intact cache. */
async function assertWorks(cache: string, which: 'get' | 'api', extra: string[] = [], as?: { uid: number; kubeconfig: string }): Promise<Run> {
  const r = await env.kdyn([...(which === 'get' ? GET : API), '--cache-dir', cache, '-v=1', ...extra], as && { uid: as.uid, cwd: join(cache, '..'), env: { KUBECONFIG: as.kubeconfig } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, expected[which]);
  assertNoStack(r);
  const lines = errLines(r);
  assert.ok(lines.length <= 1, `at most one warning:\n${r.err}`);
  assertCacheIntact(cache);
  return r;
}

interface Fault {
  name: string;
  /** Damages the warm cache at `root`. */
  apply(root: string): void;
  /** Root reads mode-000 files: as root, kdyn then runs as an unprivileged user. */
  unprivileged?: boolean;
}

const TARGETS: Array<[string, (root: string) => string]> = [
  ['kdyn summary file', combined],
  ['servergroups.json', groups],
  ['v1 serverresources.json', coreV1],
  ['apps/v1 serverresources.json', appsV1],
];

const fileFaults: Array<[string, (path: string) => void, boolean?]> = [
  ['truncated', (p) => writeFileSync(p, readFileSync(p).subarray(0, readFileSync(p).length >> 1))],
  ['cut at the first byte', (p) => writeFileSync(p, readFileSync(p).subarray(0, 1))],
  ['empty', (p) => writeFileSync(p, '')],
  ['not JSON', (p) => writeFileSync(p, '\u0000\u0001garbage\xff')],
  ['JSON of the wrong shape (an array)', (p) => writeFileSync(p, '[1,2,3]')],
  ['JSON of the wrong shape (fields of wrong types)', (p) => writeFileSync(p, '{"kind":7,"groups":"x","resources":{"a":1},"format":[]}')],
  ['JSON null', (p) => writeFileSync(p, 'null')],
  ['a directory', (p) => {
    rmSync(p);
    mkdirSync(join(p, 'inner'), { recursive: true });
  }],
  ['unreadable (mode 000)', (p) => chmodSync(p, 0), true],
];

const faults: Fault[] = [];
for (const [target, path] of TARGETS) {
  for (const [what, damage, unprivileged] of fileFaults) {
    faults.push({
      name: `${target}: ${what}`,
      apply: (root) => {
        damage(path(root));
        // kdyn answers from its summary file when it can: without it, kubectl's files are read.
        if (path !== combined) rmSync(combined(root));
      },
      unprivileged,
    });
  }
}
faults.push(
  { name: 'a file where the discovery/<host> directory should be', apply: (root) => replaceWithFile(join(root, 'discovery', host)) },
  { name: 'a file where the kdyn/<host> directory should be', apply: (root) => replaceWithFile(join(root, 'kdyn', host)) },
  { name: 'a file where the apps group directory should be', apply: (root) => replaceWithFile(join(root, 'discovery', host, 'apps')) },
  { name: 'a file where the discovery directory should be', apply: (root) => replaceWithFile(join(root, 'discovery')) },
  { name: 'a file where the kdyn directory should be', apply: (root) => replaceWithFile(join(root, 'kdyn')) },
  { name: 'the cache root itself is a file', apply: (root) => replaceWithFile(root) },
  { name: 'the summary file points at a kubectl layout that is gone', apply: (root) => rmSync(join(root, 'discovery'), { recursive: true }) },
);

function replaceWithFile(p: string): void {
  rmSync(p, { recursive: true, force: true });
  writeFileSync(p, 'not a directory\n');
}

describe('cache files and directories damaged', { concurrency: POOL }, () => {
  for (const f of faults) {
    test(f.name, async (t) => {
      const cannot = f.unprivileged && IS_ROOT ? nobodyCannotRunNode() : undefined;
      if (cannot) return t.skip(cannot);
      const cache = warmCopy();
      f.apply(cache);
      let as: { uid: number; kubeconfig: string } | undefined;
      if (f.unprivileged && IS_ROOT) {
        const unreadable: string[] = [];
        const find = (d: string): void => {
          for (const n of readdirSync(d)) {
            const p = join(d, n);
            if ((statSync(p).mode & 0o777) === 0) unreadable.push(p);
            else if (statSync(p).isDirectory()) find(p);
          }
        };
        find(cache);
        as = { uid: NOBODY, kubeconfig: openTo(cache, env.kubeconfig, unreadable) };
      }
      await assertWorks(cache, 'get', [], as);
      // Then api-resources on what get left, refreshed (cache-ttl 0: revalidated, 304 or rewritten).
      await assertWorks(cache, 'api', ['--cache-ttl', '0'], as);
    });
  }
});

/** A tmpfs mounted at a new dir (root only); `ro` after filling it from `from`. */
function tmpfs(name: string, size: string, from?: string, readOnly = false): string {
  const dir = join(env.dir, name);
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
  if (from) cpSync(from, dir, { recursive: true, preserveTimestamps: true });
  if (readOnly) execFileSync('mount', ['-o', 'remount,ro', dir]);
  return dir;
}

describe('read-only and full cache directories', { concurrency: POOL }, () => {
  const noMount = () => (mountsWork ? undefined : 'mount -t tmpfs does not work here (not root or no permission): no read-only or full file system to test on');

  test('read-only, empty: the answer, caching off, at most one warning', async (t) => {
    if (!IS_ROOT) {
      const dir = join(env.dir, 'ro-empty');
      mkdirSync(dir, 0o555);
      for (const which of ['get', 'api'] as const) await assertWorks(dir, which);
      assert.deepEqual(readdirSync(dir), []);
      return;
    }
    const why = noMount();
    if (why) return t.skip(why);
    const dir = tmpfs('ro-empty', '1m', undefined, true);
    for (const which of ['get', 'api'] as const) {
      const r = await assertWorks(dir, which);
      assert.match(r.err, /^(|Warning: .*|.*discovery cache.*\n)$/);
    }
    assert.deepEqual(readdirSync(dir), []);
  });

  test('read-only, holding a stale cache (cache-ttl 0): refetched, answered, nothing written', async (t) => {
    const why = noMount();
    if (why) return t.skip(why);
    const dir = tmpfs('ro-warm', '2m', pristine, true);
    for (const which of ['get', 'api'] as const) await assertWorks(dir, which, ['--cache-ttl', '0']);
  });

  test('full disk, empty cache: the answer, no torn file, no temp file', async (t) => {
    const why = noMount();
    if (why) return t.skip(why);
    // 48 KiB: room for a few of the ~25 files and directories, not for all of them.
    const dir = tmpfs('full-empty', '48k');
    for (const which of ['get', 'api', 'get'] as const) await assertWorks(dir, which);
  });

  test('full disk, warm cache refreshed (cache-ttl 0): the answer, the old files intact', async (t) => {
    const why = noMount();
    if (why) return t.skip(why);
    const dir = tmpfs('full-warm', '400k', pristine);
    // Fill what is left.
    try {
      writeFileSync(join(dir, 'filler'), Buffer.alloc(1 << 20));
    } catch {
      /* ENOSPC: the disk is full now */
    }
    for (const which of ['get', 'api'] as const) await assertWorks(dir, which, ['--cache-ttl', '0']);
  });
});

describe('concurrent processes', () => {
  test('16 kdyn processes at once on an empty cache: every answer right, the cache whole', async () => {
    const cache = join(env.dir, 'concurrent-empty');
    const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => env.kdyn([...(i % 2 ? API : GET), '--cache-dir', cache, '-v=1'])));
    runs.forEach((r, i) => {
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, i % 2 ? expected.api : expected.get);
      assertNoStack(r);
      assert.ok(errLines(r).length <= 1, r.err);
    });
    assertCacheIntact(cache);
    assert.ok(existsSync(groups(cache)) && existsSync(combined(cache)), 'the cache was written');
  });

  describe('16 kdyn processes racing the detached layout writer', () => {
    let big: LocalApiServer;
    let dir: string;
    before(async () => {
      big = await startServer({ tls: true, seed: 'demo', extraGroups: 120 });
      dir = join(env.dir, 'race');
      mkdirSync(dir);
      big.writeKubeconfig(join(dir, 'kubeconfig'));
    });
    after(() => big.stop());

    test('every answer right; once the writer is done, the layout is complete and whole', async () => {
      const cache = join(dir, 'cache');
      const run = (args: string[]) => runKdyn([...args, '--cache-dir', cache, '-v=1'], { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') }, cwd: dir, timeoutMs: 60_000 });
      const first = await run(API);
      assert.equal(first.code, 0, first.err);
      const rows = first.out.split('\n').length;
      // The first run left the kubectl layout to the detached writer; these start while it works.
      const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => run(i % 2 ? API : ['get', 'configmaps', '-n', 'demo', '-o', 'name'])));
      runs.forEach((r, i) => {
        assert.equal(r.code, 0, r.err);
        if (i % 2) assert.equal(r.out.split('\n').length, rows);
        else assert.equal(r.out, expected.get);
        assertNoStack(r);
        assert.ok(errLines(r).length <= 1, r.err);
      });
      await waitForLayout(join(cache, 'discovery', new URL(big.url).host.replace(/:/g, '_')));
      assertCacheIntact(cache);
      // kubectl's layout is complete: one serverresources.json per group-version.
      const layout = join(cache, 'discovery', new URL(big.url).host.replace(/:/g, '_'));
      const sg = JSON.parse(readFileSync(join(layout, 'servergroups.json'), 'utf8')) as { groups: Array<{ name: string; versions: Array<{ version: string }> }> };
      for (const g of sg.groups) for (const v of g.versions) assert.ok(existsSync(join(layout, g.name, v.version, 'serverresources.json')), `${g.name}/${v.version}`);
    });
  });
});

/** Waits (bounded) until `layout/servergroups.json` exists (the writer writes it last) and no staging dir is left. */
async function waitForLayout(layout: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const parent = join(layout, '..');
  const busy = () => !existsSync(join(layout, 'servergroups.json')) || readdirSync(parent).some((n) => LEFTOVER.test(n)) || hasTemp(layout);
  while (busy()) {
    assert.ok(Date.now() < deadline, 'the layout writer finished within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function hasTemp(dir: string): boolean {
  if (!existsSync(dir)) return false;
  for (const n of readdirSync(dir)) {
    if (LEFTOVER.test(n)) return true;
    const p = join(dir, n);
    if (statSync(p).isDirectory() && hasTemp(p)) return true;
  }
  return false;
}
