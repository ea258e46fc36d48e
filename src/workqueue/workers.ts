/**
 * A controller's worker loop (client-go's `processNextWorkItem`): `workers` loops take an item, run
 * `reconcile` on it, and then
 * - `forget` it when it succeeded (and `addAfter` it when it asked, with `{ requeueAfterMs }`);
 * - `addRateLimited` it when it threw (`onError` is told), unless it failed `maxRetries` times: then
 *   it is forgotten and dropped (`onError` says so with `dropped: true`).
 * When `signal` aborts, the queue shuts down and drains: the items already queued are still
 * processed, then the loops end and the promise resolves. The drain has a deadline (`drainTimeoutMs`,
 * default 30 s, as controller-runtime's GracefulShutdownTimeout): past it, the signal every reconcile
 * was handed aborts (so its requests end, even against a server that hangs), nothing more starts,
 * and the run resolves at once, naming the items still in flight and those never started (issue 35).
 */
import { systemClock, type Clock } from '../core/clock.js';
import type { WorkQueue } from './queue.js';

export type ReconcileResult = void | { requeueAfterMs?: number };

/** What a reconcile is handed besides its item. */
export interface ReconcileContext {
  /**
   * Aborted when the drain deadline passes after a stop: pass it to the reconcile's requests
   * (`{ signal }`) so that a server that does not answer cannot hold the controller's exit.
   */
  signal: AbortSignal;
}

/** The default drain deadline: controller-runtime's GracefulShutdownTimeout (and Kubernetes' default grace period). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

export interface RunWorkersOptions<T> {
  /** Loops processing items at once (default 1); one item is never processed by two at once. */
  workers?: number;
  /** Shuts the queue down with drain: the run resolves once what was queued is processed (or the drain deadline passed). */
  signal?: AbortSignal;
  /**
   * After `signal` aborts: how long the drain may take (ms; default 30 s; 0: no deadline). Past it the
   * reconciles' signal aborts and the run resolves with what was left.
   */
  drainTimeoutMs?: number;
  /** The clock of the drain deadline (default: the system clock). */
  clock?: Clock;
  /** After this many failures in a row an item is dropped (default: retried for ever). */
  maxRetries?: number;
  /** `retries`: how many times the item was requeued before this failure; `dropped`: it reached `maxRetries`. */
  onError?: (item: T, error: unknown, info: { retries: number; dropped: boolean }) => void;
}

/** How a run ended: both lists are empty when the drain finished within its deadline. */
export interface WorkersResult<T> {
  /** Items whose reconcile was still running at the drain deadline (their signal was aborted). */
  inFlight: T[];
  /** Items still queued at the drain deadline: never started. */
  notStarted: T[];
}

export async function runWorkers<T extends NonNullable<unknown>>(
  queue: WorkQueue<T>,
  reconcile: (item: T, context: ReconcileContext) => Promise<ReconcileResult> | ReconcileResult,
  options: RunWorkersOptions<T> = {},
): Promise<WorkersResult<T>> {
  const { signal } = options;
  const clock = options.clock ?? systemClock;
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const expired = new AbortController(); // the reconciles' signal: the drain deadline passed
  const settled = new AbortController(); // the loops ended: no deadline any more
  const inFlight = new Set<T>();
  let deadline: Promise<WorkersResult<T>> | undefined;
  let onDeadline: ((r: WorkersResult<T>) => void) | undefined;
  const stop = () => {
    void queue.shutdown({ drain: true });
    if (drainTimeoutMs <= 0) return;
    clock.sleep(drainTimeoutMs, settled.signal).then(() => {
      const left = { inFlight: [...inFlight], notStarted: queue.takeQueued() };
      expired.abort(new DrainTimeoutError(drainTimeoutMs));
      onDeadline?.(left);
    }, () => undefined);
  };
  if (drainTimeoutMs > 0) deadline = new Promise((resolve) => (onDeadline = resolve));
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  const context: ReconcileContext = { signal: expired.signal };
  const loop = async (): Promise<void> => {
    for (let item = await queue.get(); item !== undefined; item = await queue.get()) {
      if (expired.signal.aborted) {
        // Past the deadline (an item in flight then, added again meanwhile): already reported, not run.
        queue.done(item);
        continue;
      }
      inFlight.add(item);
      try {
        await processOne(queue, item, reconcile, context, options);
      } finally {
        inFlight.delete(item);
        queue.done(item);
      }
    }
  };
  const loops = Promise.all(Array.from({ length: Math.max(1, options.workers ?? 1) }, loop)).then((): WorkersResult<T> => ({ inFlight: [], notStarted: [] }));
  try {
    return await (deadline ? Promise.race([loops, deadline]) : loops);
  } finally {
    settled.abort();
    signal?.removeEventListener('abort', stop);
  }
}

/** The reason the reconciles' signal aborts with when the drain deadline passes. */
export class DrainTimeoutError extends Error {
  override readonly name = 'DrainTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`the controller's drain deadline (${timeoutMs} ms) passed`);
  }
}

async function processOne<T extends NonNullable<unknown>>(
  queue: WorkQueue<T>,
  item: T,
  reconcile: (item: T, context: ReconcileContext) => Promise<ReconcileResult> | ReconcileResult,
  context: ReconcileContext,
  options: RunWorkersOptions<T>,
): Promise<void> {
  try {
    const result = await reconcile(item, context);
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
