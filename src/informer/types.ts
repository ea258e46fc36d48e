/**
 * The informer's options, event handlers and health (./informer.ts).
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { IndexFunc } from './indexer.js';

/**
 * A delete the informer did not see as an event: the object was gone from a relist (after a 410, or
 * after the watch was restarted). `obj` is the last state the informer knew, which may be older than
 * the object's final state (client-go's `cache.DeletedFinalStateUnknown`).
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** The object of a delete, whether seen as an event or through a relist. */
export function finalState<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

export interface EventHandlers<T> {
  /** A new object; `initialList`: it came with a (re)list, or is replayed to a handler added late. */
  onAdd?(obj: T, initialList: boolean): void;
  /** A changed object; a periodic resync calls it with `old === obj`. */
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

export interface HandlerOptions {
  /** Replay the whole store to this handler (`onUpdate(obj, obj)`) every so often (ms; default: the informer's `resyncMs`). */
  resyncMs?: number;
}

export interface HandlerRegistration {
  /** The handler has been given the informer's synced state (the first full list). */
  hasSynced(): boolean;
  /** No more events for this handler. */
  remove(): void;
}

export interface InformerOptions<T> {
  labelSelector?: string;
  fieldSelector?: string;
  /** Named indexes beside the built-in `namespace` one (`byLabel('app')` or any function). */
  indexers?: Record<string, IndexFunc<NoInfer<T>>>;
  /** Default resync period of the handlers (ms; 0 or unset: none). */
  resyncMs?: number;
  /** List page size (default 500). */
  pageSize?: number;
  /** Bounds each watch request (ms); default the server's 5-10 min. */
  requestTimeoutMs?: number;
  clock?: Clock;
  /** Jitter source (default Math.random). */
  random?: () => number;
  logger?: Logger;
  /** A handler threw (the informer goes on); default: a warning on the logger. */
  onHandlerError?: (error: unknown) => void;
}

/**
 * - `listing`: a (re)list is in progress (the store is not in step yet);
 * - `watching`: in step, and a watch is open or about to be;
 * - `backoff`: the last attempt failed; waiting before the next one (`unreachable`: nothing answered);
 * - `stopped`: not started, or every consumer stopped it.
 */
export type InformerState = 'stopped' | 'listing' | 'watching' | 'backoff';

export interface InformerHealth {
  state: InformerState;
  /** The first full list is in the store. */
  synced: boolean;
  /** In backoff because the server could not be reached at all (refused, reset). */
  unreachable: boolean;
  objects: number;
  /** When the last event (bookmarks included) arrived, on the informer's clock (ms since the epoch). */
  lastEventAt?: number;
  /** Lists after the first: a 410 Expired, or a watch restarted after an error. */
  relists: number;
  /** Failed list or watch attempts. */
  failures: number;
  /** The last failure's message. */
  lastError?: string;
}
