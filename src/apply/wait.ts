/**
 * Waiting until applied objects are ready (./ready.ts judges), with the watch library
 * (src/watch/watcher.ts): each object is judged first as last seen (the apply's answer, no
 * request); the rest are watched, one watch per object when a collection holds a few of them, one
 * watch of the collection when it holds more. Each watch lists first, so nothing that happened
 * between the apply and the watch is missed. Ends at the deadline (outcome `timeout`, with the last
 * reason an object was not ready) or when `signal` is aborted (`interrupted`). The clock is
 * injected: tests move a FakeClock instead of sleeping.
 */
import type { Clock } from '../core/clock.js';
import type { ResourceClient } from '../dynamic/client.js';
import type { Unstructured } from '../core/unstructured.js';
import { Watcher } from '../watch/watcher.js';
import { byCollection, waitDeadline } from '../watch/wait-deadline.js';
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
  judge?: (obj: Unstructured) => Readiness;
}

/** Up to this many objects of one collection are watched one by one; more share one collection watch. */
const WATCH_BY_NAME_MAX = 4;

export async function waitReady(items: readonly WaitItem[], opts: WaitOptions): Promise<WaitOutcome[]> {
  const judge = opts.judge ?? defaultJudge;
  const outcomes: Array<WaitOutcome | undefined> = items.map(() => undefined);
  const reasons: string[] = items.map(() => 'not ready');
  /** Judges one state of item i; true once the item is settled. */
  const see = (i: number, obj: Unstructured): boolean => {
    const r = judge(obj);
    if (r.state === 'ready') outcomes[i] = { state: 'ready', object: obj };
    else if (r.state === 'failed') outcomes[i] = { state: 'failed', message: r.message };
    else reasons[i] = r.message;
    return outcomes[i] !== undefined;
  };
  items.forEach((it, i) => it.last && see(i, it.last));

  const groups = byCollection(items, (i) => outcomes[i] !== undefined);
  if (groups.size > 0) {
    const deadline = waitDeadline(opts.clock, opts.timeoutMs, opts.signal);
    const watches: Array<Promise<void>> = [];
    for (const members of groups.values()) {
      if (members.length <= WATCH_BY_NAME_MAX) for (const i of members) watches.push(watchUntil(items[i]!.handle, [i], items[i]!.name));
      else watches.push(watchUntil(items[members[0]!]!.handle, members));
    }
    await Promise.all(watches);
    deadline.dispose();
    items.forEach((_, i) => {
      if (!outcomes[i]) outcomes[i] = { state: deadline.timedOut() ? 'timeout' : 'interrupted', message: reasons[i]! };
    });

    /** Watches `handle` (one object when `name` is given) until every member is settled or the wait ends. */
    async function watchUntil(handle: ResourceClient, members: number[], name?: string): Promise<void> {
      const byName = new Map(members.map((i) => [items[i]!.name, i]));
      let open = members.length;
      try {
        for await (const ev of new Watcher(handle, { name, signal: deadline.signal, clock: opts.clock })) {
          const i = byName.get(String(ev.object.metadata?.name));
          if (i === undefined || outcomes[i]) continue;
          if (ev.type === 'DELETED') outcomes[i] = { state: 'gone', message: 'deleted while waiting' };
          else if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
          else if (!see(i, ev.object)) continue;
          if (--open === 0) return;
        }
      } catch (e) {
        for (const i of members) outcomes[i] ??= { state: 'error', message: (e as Error).message };
      }
    }
  }
  return outcomes as WaitOutcome[];
}
