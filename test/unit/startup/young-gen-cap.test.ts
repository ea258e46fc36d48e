/**
 * src/startup/young-gen-cap.ts: the check itself (with a fake heap), and the V8 mechanism it relies on,
 * in a child process whose young generation is made to grow: with the cap it stays at the cap,
 * without it it grows past (so the test notices if V8 stops reading the growth factor at run time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { youngGenerationCap, DEFAULT_YOUNG_CAP_BYTES, type HeapControl } from '../../../src/startup/young-gen-cap.js';

const MiB = 1024 * 1024;
const modulePath = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'startup', 'young-gen-cap.js')).href;

function fakeHeap(sizes: number[]): HeapControl & { stops: number } {
  const heap = {
    stops: 0,
    youngGenerationBytes: () => sizes.shift() ?? 0,
    stopYoungGrowth: () => void heap.stops++,
  };
  return heap;
}

test('the cap stops growth once, when the young generation reaches it, and never looks again', () => {
  const heap = fakeHeap([2 * MiB, 4 * MiB - 1, 4 * MiB, 8 * MiB]);
  const check = youngGenerationCap(heap, 4 * MiB);
  assert.equal(check(), false);
  assert.equal(check(), false);
  assert.equal(heap.stops, 0);
  assert.equal(check(), true);
  assert.equal(heap.stops, 1);
  assert.equal(check(), true);
  assert.equal(heap.stops, 1, 'stopped once');
  assert.deepEqual(heap.youngGenerationBytes(), 8 * MiB, 'not read after the cap was reached');
});

test('a young generation already past the cap is stopped at the first check', () => {
  const heap = fakeHeap([16 * MiB]);
  assert.equal(youngGenerationCap(heap)(), true);
  assert.equal(heap.stops, 1);
});

/** A child that keeps a sliding window of live objects (so some survive each scavenge), checking the cap as kdyn watch does. */
function grow(withCap: boolean): number {
  const script = `
    const { nodeHeap, youngGenerationCap } = await import(${JSON.stringify(modulePath)});
    const check = youngGenerationCap(nodeHeap, ${DEFAULT_YOUNG_CAP_BYTES});
    const window = new Array(20000);
    for (let i = 0; i < 3e6; i++) {
      window[i % 20000] = { i, s: 'event ' + i };
      if (${withCap} && (i & 1023) === 0) check();
    }
    process.stdout.write(String(nodeHeap.youngGenerationBytes()));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

test('V8 honours the cap: with it the young generation stays at the cap, without it it grows past', () => {
  const capped = grow(true);
  const free = grow(false);
  assert.ok(free > DEFAULT_YOUNG_CAP_BYTES, `without the cap the young generation should grow past ${DEFAULT_YOUNG_CAP_BYTES / MiB} MiB (it is ${free / MiB} MiB): the test no longer makes it grow`);
  assert.ok(capped <= DEFAULT_YOUNG_CAP_BYTES, `with the cap the young generation grew to ${capped / MiB} MiB: V8 no longer reads --semi-space-growth-factor at run time (src/startup/young-gen-cap.ts)`);
});
