/**
 * A watch that never silently stops and never loses an event: client-go's Reflector as an async
 * iterator over one resource (one namespace, all namespaces, or one name).
 *
 *   list (paged) -> watch from the list's resourceVersion -> ... the stream ends, times out or breaks
 *   -> watch again from the last resourceVersion seen (bookmarks included), after a backoff when it
 *      failed -> ... 410 Expired -> relist, and emit only the differences against what was emitted.
 *
 * States, one at a time: `list` (a relist is the same step: the store makes the differences) and
 * `watch`. After a failure, ./failures.ts decides: connection lost, 5xx, 429, a broken stream wait
 * (./backoff.ts, or the server's Retry-After) and retry the same state: about every second while the
 * server cannot be reached at all, with client-go's growing backoff while it answers with errors
 * (`onRetry` says which; `onResume` when a request is answered again). 401, 403 and 404 end the
 * iteration with their StatusError, unless the watch is being re-established after a lost
 * connection or a server error: then they are retried until they have lasted `retryForMs` (a
 * restarting server answers so for a moment). Other client errors end it at once; the abort signal
 * ends it quietly. The store (./store.ts) holds the last state emitted per object, so every event
 * sequence the consumer sees, applied in order, is the server's.
 */
import { KdynError, StatusError, type Status } from '../core/errors.js';
import { systemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { ResourceClient } from '../dynamic/client.js';
import type { RetryCause } from '../dynamic/types.js';
import type { Unstructured } from '../core/unstructured.js';
import type { Table, TableRow } from '../core/table.js';
import { Backoff } from './backoff.js';
import { JsonStreamDecoder } from './decoder.js';
import { classifyFailure, FailureRun, WatchProtocolError, type Decision } from './failures.js';
import { ObjectStore, type ObjectKey } from './store.js';
import { INITIAL_EVENTS_END, type RetryInfo, type WatchEvent, type WatchOptions } from './types.js';

/** A watch stream ended because the server said 410 Expired (as an HTTP status or an ERROR event). */
class Expired extends Error {}

export { WatchProtocolError };

/** A list request's options (one page at a time). */
interface PageQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit: number;
  signal?: AbortSignal;
  retryAfterMaxMs?: number;
  onRetry?: (why: RetryCause) => void;
}

/** A stream that ended without an error, but before anything was received: counts as a failure. */
class EmptyStream extends WatchProtocolError {}

/** The watch request reached `requestTimeoutMs` (the reason the watcher aborts the stream with). */
class RequestTimeLimit extends Error {}

const MIN_HEALTHY_STREAM_MS = 1000;
/** How long after its timeoutSeconds a stream may stay open before the watcher drops it. */
const STREAM_GRACE_SECONDS = 30;

export class Watcher<T extends object = Unstructured> implements AsyncIterable<WatchEvent<T>> {
  private readonly store: ObjectStore<T>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private rv: string | undefined;
  private started = false;
  /** Whether the current list or watch request got its response (a later failure is not "unreachable"). */
  private attemptAnswered = false;
  /** The current run of failures, and what it allows (./failures.ts). */
  private readonly failures: FailureRun;

  constructor(
    private readonly handle: ResourceClient<object>,
    private readonly opts: WatchOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? silentLogger;
    this.random = opts.random ?? Math.random;
    this.backoff = new Backoff(this.random);
    this.failures = new FailureRun(this.clock, opts.retryForMs);
    this.store = new ObjectStore<T>((obj) => (opts.table ? tableMeta(obj as Table) : objectMeta(obj as Unstructured)));
    this.rv = opts.resourceVersion;
  }

  /** The resourceVersion the next watch starts from (the last one seen, bookmarks included). */
  get resourceVersion(): string | undefined {
    return this.rv;
  }

  /** The objects as the consumer knows them now (after every event it received). */
  objects(): IterableIterator<T> {
    return this.store.values();
  }

  get size(): number {
    return this.store.size;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.started) throw new KdynError('a Watcher can be iterated only once');
    this.started = true;
    return this.run();
  }

  private get fieldSelector(): string | undefined {
    const { name, fieldSelector } = this.opts;
    const byName = name !== undefined ? `metadata.name=${name}` : undefined;
    return [byName, fieldSelector].filter((s) => s).join(',') || undefined;
  }

  private async *run(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const signal = this.opts.signal;
    let next: 'list' | 'watch' = this.rv === undefined ? 'list' : 'watch';
    let first = true;
    while (!signal?.aborted) {
      try {
        if (next === 'list') {
          yield* this.list(first && this.opts.initialEvents === false);
          first = false;
          next = 'watch';
          this.backoff.reset();
          continue;
        }
        const healthy = yield* this.watchOnce();
        if (healthy && this.opts.endWithRequest) return;
        if (healthy) this.backoff.reset();
        else await this.failed(new EmptyStream('the watch stream ended before any event'), 'watch');
      } catch (e) {
        if (signal?.aborted) return;
        if (e instanceof Expired || (e instanceof StatusError && e.code === 410)) {
          this.logger.info(3, `watch ${this.describe()}: ${e.message}; relisting`, 'reflector.go:1');
          this.opts.onRelist?.({ error: e, resourceVersion: this.rv });
          next = 'list';
          continue;
        }
        // A list that failed half-way is redone whole; the store keeps what was already emitted.
        await this.failed(e, next);
      }
    }
  }

  /**
   * The transport sent one of the watch's requests again (its own bounded retries): a failure of the
   * run all the same. Without it, a restart the transport rode out (refused, refused, then the new
   * server's 403 while its RBAC cache syncs) would look like a 403 after a healthy stream, the end.
   */
  private readonly transportRetried = (why: RetryCause): void => this.failures.retried(why.kind === 'network' ? 'unreachable' : 'server');

  /** A list page or a watch response arrived: the server is reachable (and back, after failures). */
  private answered(): void {
    this.attemptAnswered = true;
    const failingMs = this.failures.answered();
    if (failingMs === undefined) return;
    const info = { failures: this.backoff.count, failingMs };
    this.logger.info(2, `watch ${this.describe()}: answered again after ${info.failures} failed attempts`, 'reflector.go:1');
    this.opts.onResume?.(info);
  }

  /** After a failure: waits before the next attempt, or throws `error` when it ends the watch. */
  private async failed(error: unknown, next: RetryInfo['next']): Promise<void> {
    const cls = classifyFailure(error, this.attemptAnswered);
    const d: Decision = this.failures.decide(error, cls);
    if (!d.retry) throw error;
    const delayMs = Math.max(0, Math.min(this.backoff.next(d.kind, d.retryAfterSeconds), d.maxDelayMs ?? Infinity));
    const info: RetryInfo = { error, delayMs, failures: this.backoff.count, next, unreachable: cls === 'unreachable' };
    if (d.retryForMs !== undefined) info.retryForMs = d.retryForMs;
    this.logger.info(2, `watch ${this.describe()}: ${errorText(error)}; retrying in ${delayMs}ms`, 'reflector.go:1');
    this.opts.onRetry?.(info);
    try {
      await this.clock.sleep(delayMs, this.opts.signal);
    } catch {
      // aborted: the loop ends
    }
  }

  /** One paged list; yields ADDED/MODIFIED/DELETED against the store (nothing with `silent`). */
  private async *list(silent: boolean): AsyncGenerator<WatchEvent<T>, void, undefined> {
    // Into an empty store (the first list) every object is new and none can be gone: no keys to track.
    const seen = this.store.size > 0 ? new Set<string>() : undefined;
    const q = {
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.fieldSelector,
      limit: this.opts.pageSize ?? 500,
      signal: this.opts.signal,
      retryAfterMaxMs: this.failures.retryAfterMaxMs,
      onRetry: this.transportRetried,
    };
    let rv: string | undefined;
    this.attemptAnswered = false;
    const pages = this.opts.table ? this.tablePages(q) : this.objectPages(q);
    for await (const page of pages) {
      this.answered();
      rv = page.resourceVersion;
      for (const item of page.items) {
        const meta = this.store.meta(item);
        if (!meta) continue;
        const key = ObjectStore.key(meta);
        seen?.add(key);
        const old = this.store.get(key);
        this.store.set(meta, item, key);
        if (silent) continue;
        if (!old) yield { type: 'ADDED', object: item };
        else if (old.meta.uid && meta.uid && old.meta.uid !== meta.uid) {
          // Deleted and created again while we were not watching.
          yield { type: 'DELETED', object: old.obj };
          yield { type: 'ADDED', object: item };
        } else if (old.meta.resourceVersion !== meta.resourceVersion) yield { type: 'MODIFIED', object: item };
      }
    }
    const gone: string[] = [];
    if (seen) for (const key of this.store.keys()) if (!seen.has(key)) gone.push(key);
    for (const key of gone) {
      const old = this.store.get(key)!;
      this.store.delete(key);
      if (!silent) yield { type: 'DELETED', object: old.obj };
    }
    if (rv === undefined || rv === '') throw new WatchProtocolError(`list ${this.describe()}: the server sent no resourceVersion to watch from`);
    this.rv = rv;
    if (this.opts.bookmarks) yield { type: 'BOOKMARK', object: this.bookmark(rv, true) };
  }

  private async *objectPages(q: PageQuery): AsyncGenerator<{ resourceVersion?: string; items: T[] }> {
    for await (const page of this.handle.list(q)) yield { resourceVersion: page.metadata.resourceVersion, items: page.items as T[] };
  }

  private async *tablePages(q: PageQuery): AsyncGenerator<{ resourceVersion?: string; items: T[] }> {
    for await (const t of this.handle.listTable({ ...q, includeObject: 'Metadata' })) {
      const items = t.rows.map((row) => oneRowTable(t, row) as T);
      yield { resourceVersion: t.metadata.resourceVersion, items };
    }
  }

  /**
   * One watch request from `this.rv`, until the stream ends. Returns whether it was healthy (an
   * event arrived, it lasted long enough: the server's timeout, or it reached `requestTimeoutMs`);
   * throws on failure or Expired.
   */
  private async *watchOnce(): AsyncGenerator<WatchEvent<T>, boolean, undefined> {
    const startedAt = this.clock.now();
    const requestMs = this.opts.requestTimeoutMs !== undefined && this.opts.requestTimeoutMs > 0 ? this.opts.requestTimeoutMs : undefined;
    const timeoutSeconds = requestMs !== undefined ? Math.max(1, Math.ceil(requestMs / 1000)) : 300 + Math.floor(this.random() * 300);
    // The server ends the stream after timeoutSeconds. If it has not some time after that, the
    // connection is dead without having been closed (a lost network): give up on it and reconnect.
    // With a request time limit, the stream is dropped at that limit (a normal end).
    const guard = new AbortController();
    const onAbort = () => guard.abort(this.opts.signal!.reason);
    this.opts.signal?.addEventListener('abort', onAbort, { once: true });
    const limitMs = requestMs ?? (timeoutSeconds + STREAM_GRACE_SECONDS) * 1000;
    this.clock.sleep(limitMs, guard.signal).then(
      () =>
        guard.abort(
          requestMs !== undefined
            ? new RequestTimeLimit(`the watch request reached its time limit (${requestMs}ms)`)
            : new WatchProtocolError(`the watch stream was still open ${STREAM_GRACE_SECONDS}s after its timeoutSeconds=${timeoutSeconds}`),
        ),
      () => undefined,
    );
    try {
      return yield* this.readStream(startedAt, timeoutSeconds, guard.signal);
    } catch (e) {
      if (guard.signal.reason instanceof RequestTimeLimit && !this.opts.signal?.aborted) {
        this.logger.info(4, `watch ${this.describe()}: ${guard.signal.reason.message}`, 'reflector.go:1');
        return true;
      }
      throw e;
    } finally {
      this.opts.signal?.removeEventListener('abort', onAbort);
      guard.abort();
    }
  }

  private async *readStream(startedAt: number, timeoutSeconds: number, signal: AbortSignal): AsyncGenerator<WatchEvent<T>, boolean, undefined> {
    this.attemptAnswered = false;
    const res = await this.handle.watchStream({
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.fieldSelector,
      resourceVersion: this.rv,
      timeoutSeconds,
      allowWatchBookmarks: true,
      table: this.opts.table,
      signal,
      retryAfterMaxMs: this.failures.retryAfterMaxMs,
      onRetry: this.transportRetried,
    });
    this.answered();
    const decoder = new JsonStreamDecoder();
    let received = 0;
    try {
      for await (const chunk of res.body) {
        for (const value of decoder.push(chunk)) {
          const ev = this.accept(value, res.url);
          received++;
          if (ev) yield ev;
        }
      }
      for (const value of decoder.end()) {
        const ev = this.accept(value, res.url);
        received++;
        if (ev) yield ev;
      }
    } finally {
      res.close();
    }
    return received > 0 || this.clock.now() - startedAt >= MIN_HEALTHY_STREAM_MS;
  }

  /** Applies one decoded WatchEvent to the store; returns what to yield (undefined: nothing). */
  private accept(value: unknown, url: string): WatchEvent<T> | undefined {
    const ev = value as { type?: unknown; object?: unknown };
    if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string' || !ev.object || typeof ev.object !== 'object') {
      throw new WatchProtocolError(`watch ${url}: the server sent something that is not a WatchEvent`);
    }
    const type = ev.type;
    if (type === 'ERROR') throw watchError(ev.object as Status);
    if (type === 'BOOKMARK') {
      const rv = (ev.object as Unstructured).metadata?.resourceVersion;
      if (rv) this.rv = rv;
      return this.opts.bookmarks ? { type: 'BOOKMARK', object: ev.object as T } : undefined;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') {
      throw new WatchProtocolError(`watch ${url}: unknown event type ${JSON.stringify(type)}`);
    }
    const obj = ev.object as T;
    const meta = this.store.meta(obj);
    if (!meta) throw new WatchProtocolError(`watch ${url}: a ${type} event without object metadata`);
    if (meta.resourceVersion) this.rv = meta.resourceVersion;
    const key = ObjectStore.key(meta);
    const old = this.store.get(key);
    if (type === 'DELETED') {
      this.store.delete(key);
      return { type, object: obj };
    }
    // A change the consumer already has (same version) is not repeated.
    if (old && old.meta.resourceVersion === meta.resourceVersion && old.meta.uid === meta.uid) return undefined;
    this.store.set(meta, obj, key);
    return { type, object: obj };
  }

  private bookmark(rv: string, initialEnd: boolean): T {
    const gv = this.handle.gvr.group ? `${this.handle.gvr.group}/${this.handle.gvr.version}` : this.handle.gvr.version;
    const metadata: Unstructured['metadata'] = { resourceVersion: rv };
    if (initialEnd) metadata.annotations = { [INITIAL_EVENTS_END]: 'true' };
    return (this.opts.table ? { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions: [], rows: [] } : { apiVersion: gv, metadata }) as unknown as T;
  }

  private describe(): string {
    return this.opts.name !== undefined ? `${this.handle.describe()} "${this.opts.name}"` : this.handle.describe();
  }
}

/** Watches one resource: `for await (const ev of watch(handle, { signal })) ...`. */
export function watch<T extends object = Unstructured>(handle: ResourceClient<T>, opts?: WatchOptions & { table?: false }): Watcher<T>;
export function watch(handle: ResourceClient<object>, opts: WatchOptions & { table: true }): Watcher<Table>;
export function watch(handle: ResourceClient<object>, opts: WatchOptions = {}): Watcher<object> | Watcher<Table> {
  return opts.table ? new Watcher<Table>(handle, opts) : new Watcher<object>(handle, opts);
}

function objectMeta(obj: Unstructured): ObjectKey | undefined {
  const m = obj?.metadata;
  if (!m || typeof m !== 'object' || typeof m.name !== 'string') return undefined;
  return { namespace: m.namespace, name: m.name, uid: m.uid, resourceVersion: m.resourceVersion };
}

function tableMeta(t: Table): ObjectKey | undefined {
  const row = t?.rows?.[0];
  return row?.object ? objectMeta(row.object) : undefined;
}

function oneRowTable(t: Table, row: TableRow): Table {
  const rv = (row.object?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
  return { kind: 'Table', apiVersion: t.apiVersion, metadata: rv ? { resourceVersion: rv } : {}, columnDefinitions: t.columnDefinitions, rows: [row] };
}

function watchError(status: Status): Error {
  const code = status?.code;
  if (code === 410 || status?.reason === 'Expired' || status?.reason === 'Gone') return new Expired(status.message ?? 'resource version expired');
  return new StatusError({ ...status, kind: 'Status' }, typeof code === 'number' ? code : 500);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
