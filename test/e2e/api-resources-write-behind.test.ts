/**
 * `kdyn api-resources` on a cold cache with 200 extra CRD groups: kdyn exits once its combined file is
 * written; the detached writer then fills kubectl's layout, which `kubectl api-resources --cached`
 * reads (skipped where kubectl is not on PATH).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, runKdyn } from '../support/cli.js';
import { cachePaths } from '../../src/discovery/cache-dir.js';

const inHome = (home: string) => ({ env: { PATH: process.env.PATH, HOME: home } });

/** Resolves once `file` exists: woken by fs events on its directory tree, bounded by `timeoutMs`. */
function waitForFile(dir: string, file: string, timeoutMs: number): Promise<boolean> {
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      watcher.close();
      clearTimeout(timer);
      resolve(ok);
    };
    const watcher = watch(dir, { recursive: true }, () => existsSync(file) && done(true));
    const timer = setTimeout(() => done(existsSync(file)), timeoutMs);
    if (existsSync(file)) done(true);
  });
}

/** Resolves once no process has `cacheDir` on its command line (the layout writers get it as an argument), bounded by `timeoutMs`. */
async function writersDone(cacheDir: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && spawnSync('pgrep', ['-f', cacheDir]).status === 0) await new Promise((r) => setTimeout(r, 50));
}

describe('kdyn api-resources writes kubectl\'s layout behind (200 extra groups)', () => {
  let env: ServerEnv;
  let server: LocalApiServer;
  let home: string;
  let kubeconfig: string;
  before(async () => {
    env = await startServerEnv({ seed: 'demo', extraGroups: 200 }, 'kdyn-e2e-wb-');
    ({ server, dir: home, kubeconfig } = env);
  });
  // The detached writers (one per run that hands the layout to the background) are waited for
  // before the home is removed: one still writing would make the removal fail (ENOTEMPTY).
  after(async () => {
    await writersDone(join(home, 'cache'), 30_000);
    await env.stop();
  });

  test('exit 0 with every row; then kubectl --cached reads the layout the writer left', async (t) => {
    const cacheDir = join(home, 'cache');
    const kdyn = await runKdyn(['api-resources', '--kubeconfig', kubeconfig, '--cache-dir', cacheDir], inHome(home));
    assert.equal(kdyn.code, 0, kdyn.err);
    assert.equal(kdyn.err, '');
    const extra = kdyn.out.split('\n').filter((l) => /\bg\d{4}\.extra\.kdyn\.dev\/v1\b/.test(l));
    assert.equal(new Set(extra.map((l) => l.match(/g\d{4}/)![0])).size, 200, 'a row for each extra group');

    const p = cachePaths(cacheDir, server.url)!;
    assert.ok(existsSync(p.combinedFile), "kdyn's combined file is written before exit");
    assert.ok(await waitForFile(join(cacheDir, 'discovery'), p.serverGroupsFile, 20_000), 'the background writer wrote servergroups.json');

    // A warm kdyn answers the same, revalidating as kubectl does: two conditional requests, both 304.
    server.clearLog();
    const warm = await runKdyn(['api-resources', '--kubeconfig', kubeconfig, '--cache-dir', cacheDir], inHome(home));
    assert.equal(warm.out, kdyn.out);
    assert.deepEqual(server.requestLog.filter((e) => e.userAgent.startsWith('kdyn')).map((e) => `${e.path} ${e.status}`).sort(), ['/api 304', '/apis 304']);

    if (!hasKubectl()) return t.skip('kubectl not on PATH');
    const kubectl = await runCommand('kubectl', ['api-resources', '--cached', '--kubeconfig', kubeconfig, '--cache-dir', cacheDir], inHome(home));
    assert.equal(kubectl.code, 0, kubectl.err);
    assert.equal(kubectl.out, kdyn.out);
    // (The kubectl-dispatcher wrapper asks /version first; discovery is /api and /apis.)
    const discovery = server.requestLog.filter((e) => !e.userAgent.startsWith('kdyn') && /^\/apis?(\/|$)/.test(e.path));
    assert.deepEqual(discovery, [], 'kubectl answered from the cache kdyn left');
  });
});
