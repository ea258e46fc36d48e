/**
 * Waiting until applied objects are ready (./ready.ts judges), by polling each object with GET:
 * every 100 ms at first, backing off to 1 s, until ready, failed, the deadline or the stop signal.
 * A small, self-contained waiter behind one function, so a watch-based one can replace it without
 * touching the callers. The clock is injected: tests advance a FakeClock instead of sleeping.
 */
import type { Clock } from '../core/clock.js';
import { StatusError } from '../core/errors.js';
import type { ResourceClient } from '../dynamic/client.js';
import type { Unstructured } from '../core/unstructured.js';
import { semaphore } from './bounded.js';
import { readiness as defaultJudge, type Readiness } from './ready.js';

export interface WaitItem {
  handle: ResourceClient;
  name: string;
  /** The object as last seen (e.g. the apply response): judged first, without a request. */
  last?: Unstructured;
}

export type WaitOutcome =
  | { state: 'ready'; object: Unstructured }
  | { state: 'failed' | 'timeout' | 'gone' | 'interrupted' | 'error'; message: string };

export interface WaitOptions {
  clock: Clock;
  /** Give up after this long (from the call). */
  timeoutMs: number;
  /** Ends the waiting early (outcome `interrupted`). */
  signal?: AbortSignal;
  /** Concurrent GETs (default 8). */
  concurrency?: number;
  judge?: (obj: Unstructured) => Readiness;
}

const FIRST_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 1000;

export async function waitReady(items: readonly WaitItem[], opts: WaitOptions): Promise<WaitOutcome[]> {
  const deadline = opts.clock.now() + opts.timeoutMs;
  const limit = semaphore(opts.concurrency ?? 8);
  const judge = opts.judge ?? defaultJudge;
  return Promise.all(items.map((item) => waitOne(item, deadline, limit, judge, opts)));
}

async function waitOne(
  item: WaitItem,
  deadline: number,
  limit: <T>(f: () => Promise<T>) => Promise<T>,
  judge: (obj: Unstructured) => Readiness,
  opts: WaitOptions,
): Promise<WaitOutcome> {
  let obj = item.last;
  let interval = FIRST_INTERVAL_MS;
  let lastMessage = 'not ready';
  for (;;) {
    if (opts.signal?.aborted) return { state: 'interrupted', message: lastMessage };
    if (!obj) {
      try {
        obj = await limit(() => item.handle.get(item.name));
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return { state: 'gone', message: 'not found (deleted while waiting)' };
        return { state: 'error', message: (e as Error).message };
      }
    }
    const r = judge(obj);
    if (r.state === 'ready') return { state: 'ready', object: obj };
    if (r.state === 'failed') return { state: 'failed', message: r.message };
    lastMessage = r.message;
    const left = deadline - opts.clock.now();
    if (left <= 0) return { state: 'timeout', message: lastMessage };
    try {
      await opts.clock.sleep(Math.min(interval, left), opts.signal);
    } catch {
      return { state: 'interrupted', message: lastMessage };
    }
    interval = Math.min(interval * 2, MAX_INTERVAL_MS);
    obj = undefined;
  }
}
