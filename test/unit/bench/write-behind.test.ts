/**
 * The harness's wait for kdyn's background layout writer (bench/write-behind.ts), against a stand-in
 * writer: a real process started as `node <dir>/layout-writer.js <root> <server>` that writes
 * servergroups.json and exits only when the test closes its stdin.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { findLayoutWriters, waitForLayoutWriter } from '../../../bench/write-behind.js';
import { cachePaths } from '../../../src/discovery/cache-dir.js';

const SERVER = 'https://127.0.0.1:6443';
const hasProc = existsSync('/proc/self/cmdline');

describe('bench: waiting for the background layout writer', { skip: !hasProc && 'no /proc on this system' }, () => {
  let dir: string;
  let script: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-wb-'));
    script = join(dir, 'layout-writer.js');
    writeFileSync(
      script,
      [
        "import { mkdirSync, writeFileSync } from 'node:fs';",
        "import { dirname } from 'node:path';",
        'const sg = process.env.SG;',
        "process.stdin.on('end', () => { mkdirSync(dirname(sg), { recursive: true }); writeFileSync(sg, '{}'); process.exit(0); });",
        'process.stdin.resume();',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function startWriter(root: string): Promise<ChildProcess> {
    const sg = cachePaths(root, SERVER)!.serverGroupsFile;
    const child = spawn(process.execPath, [script, root, SERVER], { stdio: ['pipe', 'ignore', 'ignore'], env: { SG: sg } });
    await once(child, 'spawn');
    return child;
  }

  test('waits until the writer for this cache root has exited, and reports when the layout appeared', async () => {
    const root = join(dir, 'cache-a');
    const other = join(dir, 'cache-b');
    const writer = await startWriter(root);
    const unrelated = await startWriter(other);
    try {
      assert.deepEqual(findLayoutWriters(root), [writer.pid], 'only the writer given this root matches');
      const waiting = waitForLayoutWriter(root, SERVER, { deadlineMs: 30_000 });
      writer.stdin!.end();
      const w = await waiting;
      assert.equal(w.timedOut, false);
      assert.equal(w.writer, true);
      assert.ok(w.layoutMs !== undefined && w.layoutMs <= w.waitedMs, 'the layout was seen complete during the wait');
      assert.ok(existsSync(cachePaths(root, SERVER)!.serverGroupsFile));
      assert.deepEqual(findLayoutWriters(root), [], 'no writer left for this root');
      assert.deepEqual(findLayoutWriters(other), [unrelated.pid], "another root's writer is not waited for");
    } finally {
      unrelated.stdin!.end();
      writer.kill();
    }
    await once(unrelated, 'exit');
  });

  test('returns at once when no writer runs and the layout is complete', async () => {
    const root = join(dir, 'cache-c');
    const sg = cachePaths(root, SERVER)!.serverGroupsFile;
    mkdirSync(dirname(sg), { recursive: true });
    writeFileSync(sg, '{}');
    const w = await waitForLayoutWriter(root, SERVER, { deadlineMs: 30_000 });
    assert.deepEqual({ writer: w.writer, layoutMs: w.layoutMs, timedOut: w.timedOut }, { writer: false, layoutMs: 0, timedOut: false });
  });

  test('with neither a writer nor a layout (the writer gave up), it does not wait for the deadline', async () => {
    const w = await waitForLayoutWriter(join(dir, 'cache-d'), SERVER, { deadlineMs: 30_000 });
    assert.equal(w.timedOut, false);
    assert.equal(w.layoutMs, undefined);
    assert.ok(w.waitedMs < 10_000, `waited ${w.waitedMs} ms`);
  });
});
