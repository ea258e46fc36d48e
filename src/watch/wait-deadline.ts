/**
 * What `apply --wait` (../apply/wait.ts) and `delete --wait` (../delete/wait.ts) share around their
 * watches: the objects grouped by collection (one watch serves a collection's objects), and one
 * stop signal that aborts when the timeout passes on the injected clock or the caller's signal
 * aborts, remembering which of the two it was.
 */
import type { Clock } from '../core/clock.js';
import type { ResourceClient } from '../dynamic/client.js';

/** The indexes of `items` by their handle's collection path, in first-seen order (`skip`: left out). */
export function byCollection(items: ReadonlyArray<{ handle: ResourceClient }>, skip: (i: number) => boolean = () => false): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((it, i) => {
    if (skip(i)) return;
    const key = it.handle.collectionPath();
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return groups;
}

export interface WaitDeadline {
  /** Aborts at the timeout or with the caller's signal. */
  signal: AbortSignal;
  /** Whether the timeout (not the caller) ended the wait. */
  timedOut(): boolean;
  /** Stops the timer and lets go of the caller's signal. */
  dispose(): void;
}

export function waitDeadline(clock: Clock, timeoutMs: number, outer?: AbortSignal): WaitDeadline {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = new AbortController();
  clock.sleep(timeoutMs, timer.signal).then(
    () => {
      timedOut = true;
      stop.abort();
    },
    () => undefined,
  );
  return {
    signal: stop.signal,
    timedOut: () => timedOut,
    dispose() {
      timer.abort();
      outer?.removeEventListener('abort', onAbort);
    },
  };
}
