/**
 * Waiting until deleted objects are gone (kubectl delete's `--wait`, `cmd/wait` IsDeleted): an
 * object is gone when the server no longer has it, or has another object of that name (another
 * UID: it was deleted and created again). Objects of one collection share one watch (by name when
 * there are a few), over the watch library (src/watch/watcher.ts): it lists first, so an object
 * already gone is seen at the end of the list, then follows DELETED events. Ends at the deadline
 * or when `signal` is aborted. The clock is injected: tests move a FakeClock, nothing sleeps.
 */
import type { Clock } from '../core/clock.js';
import { StatusError } from '../core/errors.js';
import type { ResourceClient } from '../dynamic/client.js';
import { INITIAL_EVENTS_END } from '../watch/types.js';
import { Watcher } from '../watch/watcher.js';
import { byCollection, waitDeadline } from '../watch/wait-deadline.js';

export interface GoneItem {
  handle: ResourceClient;
  name: string;
  /** The UID that was deleted: an object of that name with another UID counts as gone. */
  uid?: string;
}

/** Per item: gone, still there at the deadline, the wait stopped, or the watch failed (its error). */
export type GoneOutcome = { state: 'gone' } | { state: 'timeout' } | { state: 'interrupted' } | { state: 'error'; error: unknown };

export interface GoneOptions {
  clock: Clock;
  /** Give up after this long (from the call). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Up to this many objects of one collection are watched by name; more share one collection watch. */
const WATCH_BY_NAME_MAX = 4;

export async function waitGone(items: readonly GoneItem[], opts: GoneOptions): Promise<GoneOutcome[]> {
  const outcomes: Array<GoneOutcome | undefined> = items.map(() => undefined);
  if (items.length === 0) return [];
  const groups = byCollection(items);
  const deadline = waitDeadline(opts.clock, opts.timeoutMs, opts.signal);

  /** Watches `handle` (one object when `name` is given) until each member is gone or the wait ends. */
  const watchUntilGone = async (handle: ResourceClient, members: number[], name?: string): Promise<void> => {
    const byName = new Map(members.map((i) => [items[i]!.name, i]));
    const seen = new Set<number>();
    let open = members.length;
    const gone = (i: number): boolean => {
      if (outcomes[i]) return false;
      outcomes[i] = { state: 'gone' };
      return --open === 0;
    };
    try {
      for await (const ev of new Watcher(handle, { name, signal: deadline.signal, clock: opts.clock, bookmarks: true })) {
        if (ev.type === 'BOOKMARK') {
          // The end of a (re)list: who was not in it is gone.
          if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') continue;
          for (const i of members) if (!seen.has(i) && gone(i)) return;
          continue;
        }
        const i = byName.get(String(ev.object.metadata?.name));
        if (i === undefined || outcomes[i]) continue;
        const uid = items[i]!.uid;
        const other = uid !== undefined && ev.object.metadata?.uid !== undefined && ev.object.metadata.uid !== uid;
        if (ev.type === 'DELETED' || other) {
          if (gone(i)) return;
        } else seen.add(i);
      }
    } catch (e) {
      for (const i of members) outcomes[i] ??= { state: 'error', error: e };
    }
  };

  const watches: Array<Promise<void>> = [];
  for (const members of groups.values()) {
    const first = items[members[0]!]!;
    if (members.length <= WATCH_BY_NAME_MAX) for (const i of members) watches.push(watchUntilGone(items[i]!.handle, [i], items[i]!.name));
    else watches.push(watchUntilGone(first.handle, members));
  }
  await Promise.all(watches);
  deadline.dispose();
  return outcomes.map((o) => o ?? { state: deadline.timedOut() ? 'timeout' : 'interrupted' });
}

/** kubectl ignores a wait it may not do (403) or the resource does not support (405): the delete itself succeeded. */
export function ignorableWaitError(e: unknown): boolean {
  return e instanceof StatusError && (e.code === 403 || e.code === 405);
}
