/**
 * src/startup/stdio.ts: kdyn's direct fd writers, in a child process with real pipes (a reader that
 * takes everything, and one that goes away early, as `kdyn get ... | head` does).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const stdio = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'startup', 'stdio.js')).href;

/** A child that writes `count` lines of 1 KiB through fdOutput(1), then exits 3 (EPIPE exits 7). */
function writer(count: number) {
  const script = `
    const { fdOutput } = await import(${JSON.stringify(stdio)});
    const out = fdOutput(1, () => process.stdout, () => process.exit(7));
    const line = 'x'.repeat(1023) + '\\n';
    for (let i = 0; i < ${count}; i++) out.write(line);
    process.exit(3);`;
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
}

test('every byte of a large output arrives, in order', async () => {
  const child = writer(4096); // 4 MiB, far more than a pipe buffer
  let bytes = 0;
  let bad = false;
  child.stdout.on('data', (b: Buffer) => {
    bytes += b.length;
    if (b.includes(0)) bad = true;
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b));
  const code = await new Promise((r) => child.on('close', r));
  assert.equal(stderr, '');
  assert.equal(code, 3);
  assert.equal(bytes, 4096 * 1024);
  assert.equal(bad, false);
});

// Node's child stdio is a socket pair: the writer sees EPIPE, or ECONNRESET when the reader closed with
// data unread (which of the two depends on timing); both must reach onEpipe.
test('a reader that goes away early is EPIPE, handed to onEpipe, not an error', async () => {
  const child = writer(100_000);
  child.stdout.once('data', () => child.stdout.destroy());
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b));
  const code = await new Promise((r) => child.on('close', r));
  assert.equal(code, 7, stderr);
  assert.equal(stderr, '');
});
