/**
 * An informer: client-go's SharedIndexInformer over kdyn's watcher (src/watch/watcher.ts), which
 * lists, watches, resumes, relists on 410 with only the differences, and reconnects with backoff.
 * The informer adds what a controller needs on top:
 * - a local store with indexes (./indexer.ts): `get(key)`, `list()`, `byIndex(name, value)`;
 * - event handlers, any number (`addEventHandler`): `onAdd`, `onUpdate(old, new)`, `onDelete`. A
 *   delete seen only through a relist reports the last known object as `DeletedFinalStateUnknown`.
 *   A handler added late first gets the store as `onAdd`s;
 * - `hasSynced()` / `waitForSync()`: the first full list is in the store;
 * - a periodic resync per handler, replaying the store as `onUpdate(obj, obj)`;
 * - one watch however many consumers: `start(signal)` counts its callers, and the watch stops when
 *   every caller's signal aborted (or on `stop()`); ./factory.ts shares informers by resource and selector;
 * - health: the connection state, the last event's time, relists and failures (`health()`, `onHealth`).
 * A watcher that ends with an error it does not retry (403, 404: a CRD not installed yet) is started
 * again after client-go's backoff; its list is then compared with the store, so handlers still see
 * each change once.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { Unstructured } from '../core/unstructured.js';
import type { ResourceClient } from '../dynamic/client.js';
import { Backoff } from '../watch/backoff.js';
import { classifyFailure } from '../watch/failures.js';
import { INITIAL_EVENTS_END, type WatchEvent } from '../watch/types.js';
import { Watcher } from '../watch/watcher.js';
import { Indexer, byNamespace, keyOf, NAMESPACE_INDEX, type IndexFunc, type KubeObject } from './indexer.js';
import {
  DeletedFinalStateUnknown,
  type EventHandlers,
  type HandlerOptions,
  type HandlerRegistration,
  type InformerHealth,
  type InformerOptions,
  type InformerState,
} from './types.js';

/** What the store is being brought in step with: a fresh watcher's list, a 410 relist, or the watch. */
type Phase = 'fresh' | 'relist' | 'watch';

interface Registration<T> {
  handlers: EventHandlers<T>;
  /** Resync period (ms), 0: none. */
  resyncMs: number;
  /** Aborted by remove(). */
  removed: AbortController;
}

export class Informer<T extends KubeObject = Unstructured> {
  private readonly store: Indexer<T>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly registrations = new Set<Registration<T>>();
  /** The registrations as of the last add or remove: what an event is delivered to (no copy per event). */
  private delivering: Array<Registration<T>> = [];
  private readonly healthListeners = new Set<(h: InformerHealth) => void>();
  private readonly syncWaiters = new Set<(synced: boolean) => void>();
  private readonly status: Omit<InformerHealth, 'objects'> = { state: 'stopped', synced: false, unreachable: false, relists: 0, failures: 0 };
  /** Running: the watch's abort controller; undefined while stopped. */
  private running: AbortController | undefined;
  /** Signals of the consumers that started the informer; undefined: started without one (runs until stop()). */
  private consumers: Set<AbortSignal> | undefined = new Set();
  private phase: Phase = 'fresh';
  /** Keys the current fresh list delivered (the rest of the store is gone); undefined while the store was empty at its start. */
  private seen: Set<string> | undefined;
  private lists = 0;

  constructor(
    readonly handle: ResourceClient,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.store = new Indexer<T>({ [NAMESPACE_INDEX]: byNamespace as IndexFunc<T>, ...options.indexers });
  }

  // ---- the store --------------------------------------------------------------------------

  /** By key: `namespace/name`, or `name` for a cluster-scoped resource. */
  get(key: string): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return this.store.list();
  }

  keys(): string[] {
    return this.store.keys();
  }

  get size(): number {
    return this.store.size;
  }

  /** The objects whose index `name` has `value` (`byIndex('namespace', 'default')`). */
  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  indexValues(name: string): string[] {
    return this.store.indexValues(name);
  }

  /** More indexes, built over the current store (a shared informer's consumers each bring theirs). */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    this.store.addIndexers(indexers);
  }

  // ---- handlers -----------------------------------------------------------------------------

  addEventHandler(handlers: EventHandlers<T>, options: HandlerOptions = {}): HandlerRegistration {
    const reg: Registration<T> = { handlers, resyncMs: options.resyncMs ?? this.options.resyncMs ?? 0, removed: new AbortController() };
    this.registrations.add(reg);
    this.delivering = [...this.registrations];
    for (const obj of this.store.list()) this.call(() => handlers.onAdd?.(obj, true));
    if (this.running) void this.resyncLoop(reg, this.running.signal);
    return {
      hasSynced: () => this.status.synced && this.registrations.has(reg),
      remove: () => {
        reg.removed.abort();
        this.registrations.delete(reg);
        this.delivering = [...this.registrations];
      },
    };
  }

  /** While the informer runs (no timer left behind when it stops) and the handler is registered. */
  private async resyncLoop(reg: Registration<T>, running: AbortSignal): Promise<void> {
    if (reg.resyncMs <= 0) return;
    const signal = AbortSignal.any([running, reg.removed.signal]);
    try {
      for (;;) {
        await this.clock.sleep(reg.resyncMs, signal);
        if (!this.status.synced) continue;
        for (const obj of this.store.list()) this.call(() => reg.handlers.onUpdate?.(obj, obj));
      }
    } catch {
      // stopped or removed
    }
  }

  // ---- sync and health ----------------------------------------------------------------------

  hasSynced(): boolean {
    return this.status.synced;
  }

  /** Resolves true once the first full list is in the store; false if it stopped (or `signal` aborted) first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.status.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (synced: boolean) => {
        this.syncWaiters.delete(done);
        signal?.removeEventListener('abort', onAbort);
        resolve(synced);
      };
      const onAbort = () => done(false);
      this.syncWaiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  health(): InformerHealth {
    return { ...this.status, objects: this.store.size };
  }

  /** Called with the health on every change of state, sync, relist or failure (not on every event). */
  onHealth(listener: (h: InformerHealth) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  private setHealth(change: Partial<Omit<InformerHealth, 'objects'>>): void {
    Object.assign(this.status, change);
    const h = this.health();
    for (const l of this.healthListeners) this.call(() => l(h));
  }

  // ---- running ------------------------------------------------------------------------------

  /**
   * Starts the watch unless it runs. Each caller with a `signal` is a consumer: the watch stops once
   * every consumer's signal aborted. Without a signal it runs until `stop()`.
   */
  start(signal?: AbortSignal): void {
    if (signal?.aborted) return;
    if (!this.running) this.consumers = new Set();
    if (!signal) this.consumers = undefined;
    else if (this.consumers) {
      this.consumers.add(signal);
      signal.addEventListener('abort', () => this.release(signal), { once: true });
    }
    if (this.running) return;
    const ac = new AbortController();
    this.running = ac;
    for (const reg of this.registrations) void this.resyncLoop(reg, ac.signal);
    void this.run(ac.signal);
  }

  /** Stops the watch (the store and handlers stay; `start` again resumes with a list). */
  stop(): void {
    const ac = this.running;
    if (!ac) return;
    this.running = undefined;
    ac.abort();
    for (const w of [...this.syncWaiters]) w(false);
    this.setHealth({ state: 'stopped', unreachable: false });
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  private release(signal: AbortSignal): void {
    if (!this.consumers?.delete(signal)) return;
    if (this.consumers.size === 0) this.stop();
  }

  private async run(signal: AbortSignal): Promise<void> {
    const restart = new Backoff(this.options.random);
    while (!signal.aborted) {
      this.phase = 'fresh';
      this.seen = this.store.size > 0 ? new Set() : undefined;
      if (this.lists++ > 0) this.status.relists++;
      this.setHealth({ state: 'listing', unreachable: false });
      try {
        for await (const ev of this.watcher(signal)) this.receive(ev);
        if (signal.aborted) return;
        throw new Error('the watch ended');
      } catch (e) {
        if (signal.aborted) return;
        const delayMs = restart.next('server');
        this.logger.info(2, `informer ${this.handle.describe()}: ${errorText(e)}; starting again in ${delayMs}ms`, 'shared_informer.go:1');
        // A server's answer (403, 404) is not "unreachable", whatever the failures before it were.
        this.setHealth({ state: 'backoff', unreachable: classifyFailure(e) === 'unreachable', failures: this.status.failures + 1, lastError: errorText(e) });
        await this.clock.sleep(delayMs, signal).catch(() => undefined);
      }
    }
  }

  private watcher(signal: AbortSignal): Watcher<Unstructured> {
    const o = this.options;
    return new Watcher<Unstructured>(this.handle, {
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      pageSize: o.pageSize,
      requestTimeoutMs: o.requestTimeoutMs,
      bookmarks: true,
      signal,
      clock: this.clock,
      random: o.random,
      logger: this.logger,
      onRetry: (r) => this.setHealth({ state: 'backoff', unreachable: r.unreachable, failures: this.status.failures + 1, lastError: errorText(r.error) }),
      onResume: () => this.setHealth({ state: this.phase === 'watch' ? 'watching' : 'listing', unreachable: false }),
      onRelist: () => {
        this.phase = 'relist';
        this.setHealth({ state: 'listing', relists: this.status.relists + 1 });
      },
    });
  }

  // ---- events -------------------------------------------------------------------------------

  private receive(ev: WatchEvent<Unstructured>): void {
    this.status.lastEventAt = this.clock.now();
    if (ev.type === 'BOOKMARK') {
      if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') this.listed();
      return;
    }
    const obj = ev.object as unknown as T;
    const key = keyOf(obj);
    if (this.phase === 'fresh') this.seen?.add(key);
    if (ev.type === 'DELETED') {
      const old = this.store.delete(key);
      if (old) this.deleted(this.phase === 'watch' ? obj : new DeletedFinalStateUnknown(key, old));
      return;
    }
    const old = this.store.set(key, obj);
    if (!old) return this.added(obj);
    const [was, now] = [old.metadata ?? {}, obj.metadata ?? {}];
    if (was.uid && now.uid && was.uid !== now.uid) {
      // Deleted and made again while the informer was not watching (a fresh list after a restart).
      this.deleted(new DeletedFinalStateUnknown(key, old));
      return this.added(obj);
    }
    // A fresh list repeats what the store has: nothing changed.
    if (this.phase === 'fresh' && was.resourceVersion === now.resourceVersion) return;
    for (const r of this.delivering) this.call(() => r.handlers.onUpdate?.(old, obj));
  }

  /** A (re)list is complete: objects a fresh list did not deliver are gone. */
  private listed(): void {
    if (this.phase === 'fresh' && this.seen) {
      for (const key of this.store.keys()) {
        if (this.seen.has(key)) continue;
        const old = this.store.delete(key)!;
        this.deleted(new DeletedFinalStateUnknown(key, old));
      }
    }
    this.seen = undefined;
    this.phase = 'watch';
    const firstSync = !this.status.synced;
    this.setHealth({ state: 'watching', synced: true, unreachable: false });
    if (firstSync) for (const w of [...this.syncWaiters]) w(true);
  }

  private added(obj: T): void {
    const initial = this.phase !== 'watch';
    for (const r of this.delivering) this.call(() => r.handlers.onAdd?.(obj, initial));
  }

  private deleted(obj: T | DeletedFinalStateUnknown<T>): void {
    for (const r of this.delivering) this.call(() => r.handlers.onDelete?.(obj));
  }

  /** Runs a handler; a throw is reported and the informer goes on. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (this.options.onHandlerError) this.options.onHandlerError(e);
      else this.logger.warn(`informer ${this.handle.describe()}: an event handler threw: ${errorText(e)}`);
    }
  }
}

/** An informer of its own (not shared: see InformerFactory for that). */
export function informer<T extends KubeObject = Unstructured>(handle: ResourceClient, options: InformerOptions<T> = {}): Informer<T> {
  return new Informer<T>(handle, options);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
