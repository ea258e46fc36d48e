/**
 * Write-behind of kubectl's layout (src/discovery/write-behind.ts): a cold answer needing more files
 * than the threshold writes only kdyn's combined file; the background writer (the built entry
 * dist/cli/layout-writer.js from src/discovery/layout-writer.ts, run as a real child process) writes
 * the same bytes the synchronous writer writes, dated like the combined file. startLayoutWriter()
 * finds the writer beside itself (here build/src/discovery/layout-writer.js).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, listFiles, type Harness } from './harness.js';
import { repoRoot } from '../../support/cli.js';
import { createCachedDiscovery, type WriteBehindJob } from '../../../src/discovery/cached.js';
import { startLayoutWriter } from '../../../src/discovery/write-behind.js';
import { cachePaths } from '../../../src/discovery/cache-dir.js';
import { silentLogger } from '../../../src/core/log.js';
import { buildNameIndex } from '../../../src/restmapper/name-index.js';

const WRITER = join(repoRoot(), 'dist', 'cli', 'layout-writer.js');

/** Runs the built writer as a child process; resolves with its exit code. */
function runWriter(job: WriteBehindJob): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, job.root, job.server], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

function tree(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

describe('discovery write-behind', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ extraGroups: 30 });
  });
  after(() => h.close());

  /** A CachedDiscovery whose write-behind only records the jobs (the test runs the writer itself). */
  function writeBehindDiscovery(cacheDir: string, threshold: number) {
    const jobs: WriteBehindJob[] = [];
    const d = createCachedDiscovery({
      transport: h.transport, server: h.serverUrl, cacheDir, ttlMs: 600_000, env: {}, clock: h.clock, logger: silentLogger,
      writeBehind: { threshold, start: (job) => void jobs.push(job) },
      index: buildNameIndex,
    });
    return { d, jobs };
  }

  /** A cold snapshot under `<tmp>/<name>` with write-behind: its paths and the one job it handed over. */
  async function coldWithJob(name: string) {
    const p = cachePaths(join(h.tmp, name), h.serverUrl)!;
    const { d, jobs } = writeBehindDiscovery(join(h.tmp, name), 5);
    await d.snapshot();
    await d.flush();
    return { p, job: jobs[0]! };
  }

  /** The layout in `kubectlDir` holds the same files and bytes as the synchronous writer's (wb-sync, the cold test's). */
  function assertSyncLayout(kubectlDir: string, message?: string): void {
    const expected = tree(cachePaths(join(h.tmp, 'wb-sync'), h.serverUrl)!.kubectlDir);
    const actual = tree(kubectlDir);
    assert.deepEqual([...actual.keys()], [...expected.keys()], message);
    for (const [f, text] of expected) assert.equal(actual.get(f), text, f);
  }

  test('cold: only the combined file before exit; the writer produces the synchronous layout, dated like the combined file', async () => {
    assert.ok(existsSync(WRITER), `${WRITER} is built`);
    const cacheDir = join(h.tmp, 'wb-cold');
    const p = cachePaths(cacheDir, h.serverUrl)!;
    const { d, jobs } = writeBehindDiscovery(cacheDir, 5);
    const snap = await d.snapshot();
    await d.flush();
    assert.ok(snap.resources.has('g0030.extra.kdyn.dev/v1'));
    assert.ok(existsSync(p.combinedFile), 'the combined file is written before exit');
    assert.equal(existsSync(p.kubectlDir), false, "kubectl's layout is left to the background writer");
    assert.deepEqual(jobs, [{ root: cacheDir, server: h.serverUrl }], 'the writer gets paths only');

    // The synchronous writer's output, from the same server, for comparison.
    const syncDir = join(h.tmp, 'wb-sync');
    const s = h.discovery({ cacheDir: syncDir });
    await s.snapshot();
    await s.flush();
    const syncPaths = cachePaths(syncDir, h.serverUrl)!;

    assert.equal(await runWriter(jobs[0]!), 0);
    const expected = tree(syncPaths.kubectlDir);
    const actual = tree(p.kubectlDir);
    assert.ok(expected.size > 30, `${expected.size} files`);
    assert.deepEqual([...actual.keys()], [...expected.keys()]);
    for (const [f, text] of expected) assert.equal(actual.get(f), text, f);
    assert.equal(readFileSync(p.combinedFile, 'utf8'), readFileSync(syncPaths.combinedFile, 'utf8'));
    const combinedMtime = statSync(p.combinedFile).mtimeMs;
    for (const f of actual.keys()) assert.equal(statSync(join(p.kubectlDir, f)).mtimeMs, combinedMtime, f);
    for (const f of actual.keys()) assert.equal(statSync(join(p.kubectlDir, f)).mode & 0o777, 0o660, f);
  });

  test('startLayoutWriter() starts the writer beside it, detached, and it writes the layout', async () => {
    const { p, job } = await coldWithJob('wb-spawn');
    assert.equal(existsSync(p.kubectlDir), false);
    await startLayoutWriter(job);
    // servergroups.json is written last; a hang guard, not a timing figure.
    for (let i = 0; i < 600 && !existsSync(p.serverGroupsFile); i++) await new Promise((r) => setTimeout(r, 50));
    assertSyncLayout(p.kubectlDir);
  });

  test('warm after the writer: reads the combined file only, no requests; a later kubectl rewrite is honoured', async () => {
    const cacheDir = join(h.tmp, 'wb-warm');
    const p = cachePaths(cacheDir, h.serverUrl)!;
    const { d, jobs } = writeBehindDiscovery(cacheDir, 5);
    const cold = await d.snapshot();
    await d.flush();
    assert.equal(await runWriter(jobs[0]!), 0);

    // Change one of kubectl's files but keep its date: a warm kdyn must not read it.
    const file = join(p.kubectlDir, 'g0001.extra.kdyn.dev', 'v1', 'serverresources.json');
    const st = statSync(file);
    const list = JSON.parse(readFileSync(file, 'utf8'));
    list.resources[0].kind = 'Tampered';
    writeFileSync(file, JSON.stringify(list));
    utimesSync(file, st.atime, st.mtime);
    h.server.clearLog();
    const warm = await writeBehindDiscovery(cacheDir, 5).d.snapshot();
    assert.deepEqual(h.discoveryRequests(), []);
    assert.deepEqual(warm.resources.get('g0001.extra.kdyn.dev/v1'), cold.resources.get('g0001.extra.kdyn.dev/v1'));

    // kubectl rewrites servergroups.json later, without group g0002: kdyn reads kubectl's files.
    const sg = JSON.parse(readFileSync(p.serverGroupsFile, 'utf8'));
    sg.groups = sg.groups.filter((g: { name: string }) => g.name !== 'g0002.extra.kdyn.dev');
    writeFileSync(p.serverGroupsFile, JSON.stringify(sg));
    const later = new Date(statSync(p.combinedFile).mtimeMs + 5_000);
    utimesSync(p.serverGroupsFile, later, later);
    const after = await writeBehindDiscovery(cacheDir, 5).d.snapshot();
    assert.deepEqual(h.discoveryRequests(), []);
    assert.equal(after.groups.some((g) => g.name === 'g0002.extra.kdyn.dev'), false, "kubectl's newer servergroups.json wins");
    assert.equal(after.resources.get('g0001.extra.kdyn.dev/v1')?.[0]?.kind, 'Tampered', "kubectl's files are read");
  });

  test('two writers at once leave the same layout as one', async () => {
    const { p, job } = await coldWithJob('wb-twice');
    assert.deepEqual(await Promise.all([runWriter(job), runWriter(job)]), [0, 0]);
    assertSyncLayout(p.kubectlDir, 'no temp files or staging directories left');
    assert.deepEqual(listFiles(p.kdynDir), ['discovery.json']);
  });

  test('the writer never writes outside the root and exits 0 on bad input', async () => {
    const cacheDir = join(h.tmp, 'wb-bad');
    assert.equal(await runWriter({ root: cacheDir, server: 'https://x/../../../etc' }), 0);
    assert.equal(await runWriter({ root: cacheDir, server: h.serverUrl }), 0, 'no combined file');
    assert.equal(existsSync(cacheDir), false);
  });

  test('at or below the threshold, kubectl\'s layout is written before flush() resolves', async () => {
    const cacheDir = join(h.tmp, 'wb-small');
    const p = cachePaths(cacheDir, h.serverUrl)!;
    const { d, jobs } = writeBehindDiscovery(cacheDir, 10_000);
    await d.snapshot();
    await d.flush();
    assert.deepEqual(jobs, []);
    assert.ok(existsSync(p.serverGroupsFile));
    assert.ok(statSync(p.serverGroupsFile).mtimeMs <= statSync(p.combinedFile).mtimeMs);
  });
});
