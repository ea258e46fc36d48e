/**
 * Flat memory for long-running streams (`kdyn watch`): a cap on the growth of V8's young generation.
 *
 * V8 grows the young generation (two semi-spaces, 1 MiB each at start, 16 MiB each at most on 64-bit)
 * whenever the bytes that survived scavenges since its last growth exceed its size. In a stream of
 * millions of short-lived events a few bytes survive each scavenge, so it always grows, step by step,
 * to its maximum, and peak RSS climbs with the length of the stream. Measured (`kdyn watch -o jsonl`,
 * the bench feed, Node 20): peak RSS 79 MiB after 50,000 events, 124 after 400,000, 160 after 1.2
 * million, with the live heap after each full GC flat at 5-14 MiB.
 *
 * kdyn cannot give its own process `--max-semi-space-size` (V8 reads it once, at start: it would take
 * a re-exec, ~20 ms of start-up). But V8 reads `--semi-space-growth-factor` at each growth: once the
 * young generation has reached `capBytes`, the factor is set to 1 and it grows no more. Measured with
 * a 4 MiB cap: 68 MiB after 50,000 events, 98 after 400,000, 98 after 1.2 million, at the same events
 * per second (a 1 MiB cap, i.e. no growth at all, costs ~15% of the throughput).
 *
 * What this relies on, and what breaks if V8 changes it: v8.setFlagsFromString at run time (Node
 * documents it, with "behavior is undefined" after start-up) and V8 reading the growth factor at each
 * growth. If V8 stops doing either, the young generation grows as before: memory climbs again, nothing
 * fails. test/unit/startup/young-gen-cap.test.ts runs a child process that makes the young generation
 * grow and fails if it passes the cap.
 */

import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The two things the cap needs of the JavaScript engine (injected: tests pass a fake). */
export interface HeapControl {
  /** Bytes the young generation currently holds (both semi-spaces). */
  youngGenerationBytes(): number;
  /** From now on, never grow the young generation again. */
  stopYoungGrowth(): void;
}

export const DEFAULT_YOUNG_CAP_BYTES = 4 * 1024 * 1024;

/** Node's V8 (in dist/cli, node:v8 is a lazily required built-in: loaded at the first check). */
export const nodeHeap: HeapControl = {
  youngGenerationBytes: () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0,
  stopYoungGrowth: () => setFlagsFromString('--semi-space-growth-factor=1'),
};

/**
 * A check to call now and then while streaming (each call costs a few microseconds until the cap
 * is reached, nothing after). Returns true once growth has been stopped.
 */
export function youngGenerationCap(heap: HeapControl, capBytes = DEFAULT_YOUNG_CAP_BYTES): () => boolean {
  let capped = false;
  return () => {
    if (!capped && heap.youngGenerationBytes() >= capBytes) {
      heap.stopYoungGrowth();
      capped = true;
    }
    return capped;
  };
}
