/**
 * A controller's work queue: client-go's `util/workqueue` (Type + delaying + rate-limiting) in one
 * typed class.
 * - **Deduplicating**: an item added while it waits (it is *dirty*) is not added twice.
 * - **Never concurrent**: an item added while a worker processes it waits, dirty, until that worker
 *   calls `done(item)`, and is then queued again; so no two workers ever hold the same item.
 * - **Delaying**: `addAfter(item, ms)`; an item waiting for its time keeps the earliest one.
 * - **Rate-limited**: `addRateLimited(item)` waits as the rate limiter says (./rate-limiters.ts:
 *   exponential per item, and a token bucket overall), `forget(item)` after a success.
 * - **Shutdown**: `shutdown()` refuses new items and drops the delayed ones; `get()` still hands out
 *   what was queued, then resolves undefined. `shutdown({ drain: true })` also waits until every
 *   queued item was processed and every worker called `done`.
 * Items are compared by `key(item)` (default: the item itself, so strings and numbers by value,
 * objects by identity); the queue hands out the latest item added under a key.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface WorkQueueOptions<T> {
  /** What makes two items the same (default: the item itself). */
  key?: (item: T) => unknown;
  /** Default: defaultControllerRateLimiter (5 ms doubling to 1000 s per item; 10 qps, burst 100 overall). */
  rateLimiter?: RateLimiter;
  clock?: Clock;
}

export class WorkQueue<T extends NonNullable<unknown>> {
  private readonly keyOf: (item: T) => unknown;
  private readonly clock: Clock;
  readonly rateLimiter: RateLimiter;
  /** Keys in the order they are handed out. */
  private readonly order: unknown[] = [];
  private head = 0;
  /** Keys waiting to be processed (in `order`, or held until their worker is done), and their items. */
  private readonly dirty = new Map<unknown, T>();
  private readonly processing = new Set<unknown>();
  private readonly delayed = new Map<unknown, { at: number; stop: AbortController }>();
  private readonly getters: Array<(item: T | undefined) => void> = [];
  private drainers: Array<() => void> = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.keyOf = options.key ?? ((item) => item);
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
  }

  /** Items waiting to be handed out (not the delayed ones, nor those being processed). */
  get length(): number {
    return this.order.length - this.head;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(item: T): void {
    if (this.shuttingDown) return;
    const key = this.keyOf(item);
    const queued = this.dirty.has(key);
    this.dirty.set(key, item);
    if (queued || this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) return this.handOut(key, getter);
    this.order.push(key);
  }

  /** Adds `item` after `ms` (at once when `ms` <= 0); an earlier pending time for it wins. */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(item);
    const key = this.keyOf(item);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    pending?.stop.abort();
    const stop = new AbortController();
    this.delayed.set(key, { at, stop });
    this.clock.sleep(ms, stop.signal).then(
      () => {
        this.delayed.delete(key);
        this.add(item);
      },
      () => undefined,
    );
  }

  /** Adds `item` after the rate limiter's wait for it (one more failure). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(this.keyOf(item)));
  }

  /** `item` succeeded: the rate limiter forgets its failures. */
  forget(item: T): void {
    this.rateLimiter.forget(this.keyOf(item));
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.keyOf(item));
  }

  /** The next item (call `done(item)` when finished with it); undefined once shut down and empty. */
  get(): Promise<T | undefined> {
    if (this.length > 0) {
      const key = this.order[this.head++];
      this.compact();
      return new Promise((resolve) => this.handOut(key, resolve));
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * Removes and returns the items waiting to be handed out, in order (not the delayed ones, nor those
   * being processed): what a worker loop that stops at a deadline leaves undone.
   */
  takeQueued(): T[] {
    const keys = this.order.splice(this.head);
    this.order.length = 0;
    this.head = 0;
    const items = keys.map((key) => {
      const item = this.dirty.get(key)!;
      this.dirty.delete(key);
      return item;
    });
    this.checkDrained();
    return items;
  }

  /** A worker is finished with `item`: if it was added meanwhile, it is queued again. */
  done(item: T): void {
    const key = this.keyOf(item);
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key)) {
      const getter = this.getters.shift();
      if (getter) this.handOut(key, getter);
      else this.order.push(key);
    }
    this.checkDrained();
  }

  /**
   * Refuses new items and drops the delayed ones; waiting `get()`s resolve undefined once nothing is
   * queued. With `drain`, resolves when every queued item was handed out and every worker called `done`.
   */
  shutdown(options: { drain?: boolean } = {}): Promise<void> {
    this.shuttingDown = true;
    for (const { stop } of this.delayed.values()) stop.abort();
    this.delayed.clear();
    if (this.length === 0) for (const getter of this.getters.splice(0)) getter(undefined);
    if (!options.drain) return Promise.resolve();
    return new Promise((resolve) => {
      this.drainers.push(resolve);
      this.checkDrained();
    });
  }

  private handOut(key: unknown, to: (item: T) => void): void {
    const item = this.dirty.get(key)!;
    this.dirty.delete(key);
    this.processing.add(key);
    to(item);
  }

  private checkDrained(): void {
    if (!this.shuttingDown || this.length > 0 || this.processing.size > 0) return;
    for (const getter of this.getters.splice(0)) getter(undefined);
    for (const resolve of this.drainers.splice(0)) resolve();
  }

  /** Drops the handed-out part of `order` now and then (an array shift per get is O(n)). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }
}
