/**
 * A controller's worker loop (client-go's `processNextWorkItem`): `workers` loops take an item, run
 * `reconcile` on it, and then
 * - `forget` it when it succeeded (and `addAfter` it when it asked, with `{ requeueAfterMs }`);
 * - `addRateLimited` it when it threw (`onError` is told), unless it failed `maxRetries` times: then
 *   it is forgotten and dropped (`onError` says so with `dropped: true`).
 * When `signal` aborts, the queue shuts down and drains: the items already queued are still
 * processed, then the loops end and the promise resolves.
 */
import type { WorkQueue } from './queue.js';

export type ReconcileResult = void | { requeueAfterMs?: number };

export interface RunWorkersOptions<T> {
  /** Loops processing items at once (default 1); one item is never processed by two at once. */
  workers?: number;
  /** Shuts the queue down with drain: the run resolves once what was queued is processed. */
  signal?: AbortSignal;
  /** After this many failures in a row an item is dropped (default: retried for ever). */
  maxRetries?: number;
  /** `retries`: how many times the item was requeued before this failure; `dropped`: it reached `maxRetries`. */
  onError?: (item: T, error: unknown, info: { retries: number; dropped: boolean }) => void;
}

export async function runWorkers<T extends NonNullable<unknown>>(
  queue: WorkQueue<T>,
  reconcile: (item: T) => Promise<ReconcileResult> | ReconcileResult,
  options: RunWorkersOptions<T> = {},
): Promise<void> {
  const { signal } = options;
  const stop = () => void queue.shutdown({ drain: true });
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  const loop = async (): Promise<void> => {
    for (let item = await queue.get(); item !== undefined; item = await queue.get()) {
      try {
        await processOne(queue, item, reconcile, options);
      } finally {
        queue.done(item);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.workers ?? 1) }, loop));
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

async function processOne<T extends NonNullable<unknown>>(
  queue: WorkQueue<T>,
  item: T,
  reconcile: (item: T) => Promise<ReconcileResult> | ReconcileResult,
  options: RunWorkersOptions<T>,
): Promise<void> {
  try {
    const result = await reconcile(item);
    queue.forget(item);
    if (result && result.requeueAfterMs !== undefined) queue.addAfter(item, result.requeueAfterMs);
  } catch (e) {
    const retries = queue.numRequeues(item);
    const dropped = options.maxRetries !== undefined && retries >= options.maxRetries;
    options.onError?.(item, e, { retries, dropped });
    if (dropped) queue.forget(item);
    else queue.addRateLimited(item);
  }
}
