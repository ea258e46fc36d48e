/**
 * Several watches as one (`kdyn watch deployments,pods`, `get -w`, `watch --for`): one
 * Reflector-style Watcher (./watcher.ts) per target, merged in arrival order (./merge.ts), with the
 * bookkeeping a consumer of several streams needs:
 * - **the initial block**: with `initialBlock`, each target's initial list is handed over as one
 *   batch once it is complete (the BOOKMARK annotated `k8s.io/initial-events-end`), as kubectl
 *   prints a table's initial rows together; later events come one by one;
 * - **bookmark sync**: a target is `synced` once its initial list is in (at once with
 *   `resourceVersion`, which skips the list), `listed` once any (re)list completed;
 * - **stop reasons**: `timeout` (`timeoutMs`, or `checkOnce` with every target synced and `until`
 *   unmet), `done` (`until` holds, or `maxEvents` delivered), `failed` (with `checkOnce`, a list or
 *   watch failure is the answer instead of a retry), `aborted` (`signal`), or the caller's reason
 *   given to `stop()` (the CLI passes `SIGINT`/`SIGTERM`). The first reason wins;
 * - **a type that goes away**: a 404 once a target had been served (its CRD deleted) ends that
 *   target's stream alone (`onGone`); when none is left the run ends with no reason. (A 404 while
 *   a watch is re-established after a lost connection is retried first, up to `retryForMs`: a
 *   restarting server serves its custom resources a moment after it listens; ./failures.ts.)
 * Nothing here prints: events go to the `onEvents` callback, notices to the hooks.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { StatusError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { ResourceClient } from '../dynamic/client.js';
import { mergeIterables } from './merge.js';
import { INITIAL_EVENTS_END, type RelistInfo, type ResumeInfo, type RetryInfo, type WatchEvent } from './types.js';
import { Watcher } from './watcher.js';

/** One resource (and optionally one name) to watch. */
export interface MultiWatchTarget {
  handle: ResourceClient;
  /** The kind the events are of (for printers that show it). */
  gk: { group: string; kind: string };
  /** A label for messages (`crontabs.stable.example.com`). */
  type: string;
  /** The resource without its group (`crontabs`), as kubectl wait names objects. */
  resource: string;
  /** Watch this one object only. */
  name?: string;
}

/** A target's state during and after the run. */
export interface MultiWatchSource extends MultiWatchTarget {
  readonly watcher: Watcher<Unstructured> | Watcher<Table>;
  /** Its initial list is complete (or skipped by `resourceVersion`). */
  synced: boolean;
  /** A (re)list completed: the events are differences against a full list from now on. */
  listed: boolean;
  /** The objects as they are now (the watcher's store). */
  objects(): Unstructured[];
  /** With `trackGone`: objects seen during the run and gone since, in the order first seen. */
  gone(): Unstructured[];
}

/** One delivered event (never a BOOKMARK), tagged with its target. */
export interface MultiWatchEvent {
  type: string;
  object: Unstructured | Table;
  gk: { group: string; kind: string };
  /** The index of its target. */
  source: number;
}

export type MultiWatchStopReason = 'timeout' | 'done' | 'failed' | 'aborted' | (string & {});

export interface MultiWatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this resourceVersion (no initial list: every target is synced from the start). */
  resourceVersion?: string;
  /** Deliver the initial lists (default true; false: kubectl's `--watch-only`). */
  initialEvents?: boolean;
  /** Server-side printing: objects are one-row Tables. */
  table?: boolean;
  /** Hold each target's initial list until it is complete, then deliver it as one batch. */
  initialBlock?: boolean;
  /** List page size (0: one request). */
  pageSize?: number;
  /** Bounds each watch request (ms). */
  requestTimeoutMs?: number;
  /** End a target's stream when a watch request ends normally (kubectl `get -w --request-timeout`). */
  endWithRequest?: boolean;
  /** How long a 401/403/404 is retried while a watch is re-established (WatchOptions.retryForMs). */
  retryForMs?: number;
  /** Stop (reason `timeout`) after this long. */
  timeoutMs?: number;
  /** Stop (reason `done`) once this many events were delivered. */
  maxEvents?: number;
  /** Checked after every event once every target is synced: true stops the run (reason `done`). */
  until?: (sources: readonly MultiWatchSource[]) => boolean;
  /** Check `until` once, when every target is synced, and stop (`timeout` if unmet); a failure stops with `failed`. */
  checkOnce?: boolean;
  /** Remember every object seen, for `MultiWatchSource.gone()`. */
  trackGone?: boolean;
  signal?: AbortSignal;
  clock?: Clock;
  logger?: Logger;
  /** Every event received, BOOKMARKs included (e.g. to tune memory every N events). */
  onReceive?: () => void;
  onRetry?: (info: RetryInfo, source: MultiWatchSource) => void;
  /** A target's list or watch is answered again after failures (the server is back). */
  onResume?: (info: ResumeInfo, source: MultiWatchSource) => void;
  /** A 410 and a relist; `source.listed` tells whether a list had completed before. */
  onRelist?: (info: RelistInfo, source: MultiWatchSource) => void;
  /** A target's (re)list completed (after its events, the initial block included, were delivered). */
  onListed?: (source: MultiWatchSource) => void;
  /** A target's type is no longer served (404 after it was): its stream ended. */
  onGone?: (source: MultiWatchSource, error: StatusError) => void;
}

export interface MultiWatchResult {
  /** Why the run stopped; undefined when every stream ended on its own. */
  reason?: MultiWatchStopReason;
  /** The error that ended the run (a watcher's, or the first failure with `checkOnce`). */
  error?: unknown;
  sources: readonly MultiWatchSource[];
}

/** Watches several targets as one stream. Call `run` once; `stop` may be called at any time. */
export class MultiWatch {
  readonly sources: readonly MultiWatchSource[];
  private readonly opts: MultiWatchOptions;
  private readonly ac = new AbortController();
  /** With `trackGone`: every object seen, per target, by namespace/name. */
  private readonly seen: Array<Map<string, Unstructured>>;
  private reason: MultiWatchStopReason | undefined;
  private error: unknown;

  constructor(targets: readonly MultiWatchTarget[], opts: MultiWatchOptions = {}) {
    this.opts = opts;
    this.seen = targets.map(() => new Map());
    this.sources = targets.map((t, i) => this.source(t, i));
    opts.signal?.addEventListener('abort', () => this.stop('aborted'), { once: true });
  }

  /** Stops the run with `reason` unless it stopped already; true when this call set the reason. */
  stop(reason: MultiWatchStopReason): boolean {
    const first = this.reason === undefined;
    this.reason ??= reason;
    this.ac.abort();
    return first;
  }

  /** Runs until a stop reason, an error, or the end of every stream; `onEvents` gets each batch. */
  async run(onEvents: (events: MultiWatchEvent[]) => void): Promise<MultiWatchResult> {
    const { opts, sources } = this;
    if (opts.signal?.aborted) this.stop('aborted');
    if (opts.timeoutMs !== undefined) (opts.clock ?? systemClock).sleep(opts.timeoutMs, this.ac.signal).then(() => this.stop('timeout'), () => undefined);
    const initial: MultiWatchEvent[][] = sources.map(() => []);
    const deliver = (events: MultiWatchEvent[]) => {
      if (events.length > 0) onEvents(events);
    };
    let delivered = 0;
    try {
      this.check();
      for await (const { source: i, value: ev } of mergeIterables(sources.map((s) => untilGone(s, opts.onGone)))) {
        const s = sources[i]!;
        opts.onReceive?.();
        if (ev.type === 'BOOKMARK') {
          if ((ev.object.metadata as Unstructured['metadata'])?.annotations?.[INITIAL_EVENTS_END] === 'true') {
            s.listed = true;
            if (!s.synced) {
              s.synced = true;
              deliver(initial[i]!.splice(0));
            }
            opts.onListed?.(s);
          }
        } else {
          if (opts.trackGone && ev.type !== 'DELETED') this.seen[i]!.set(keyOf(ev.object as Unstructured), ev.object as Unstructured);
          const e: MultiWatchEvent = { type: ev.type, object: ev.object, gk: s.gk, source: i };
          if (opts.initialBlock && !s.synced) initial[i]!.push(e);
          else deliver([e]);
          delivered++;
          if (opts.maxEvents !== undefined && delivered >= opts.maxEvents) this.stop('done');
        }
        this.check();
        if (this.ac.signal.aborted) break;
      }
    } catch (e) {
      this.error = e;
    } finally {
      this.ac.abort();
    }
    for (const held of initial) deliver(held.splice(0));
    return { reason: this.reason, error: this.error, sources };
  }

  /** `until` met: done; `checkOnce` with every target synced: timeout. */
  private check(): void {
    const allSynced = this.sources.every((s) => s.synced);
    if (this.opts.until && allSynced && this.opts.until(this.sources)) this.stop('done');
    else if (this.opts.checkOnce && allSynced) this.stop('timeout');
  }

  private source(t: MultiWatchTarget, index: number): MultiWatchSource {
    const { opts } = this;
    const self = (): MultiWatchSource => this.sources[index]!;
    const watcher = new Watcher<Unstructured | Table>(t.handle, {
      name: t.name,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      initialEvents: opts.initialEvents,
      bookmarks: true,
      table: opts.table,
      pageSize: opts.pageSize,
      requestTimeoutMs: opts.requestTimeoutMs,
      endWithRequest: opts.endWithRequest,
      retryForMs: opts.retryForMs,
      signal: this.ac.signal,
      clock: opts.clock,
      logger: opts.logger,
      onRetry: (r) => {
        // checkOnce: a failed list or watch is the answer, not something to retry.
        if (opts.checkOnce) {
          this.error ??= r.error;
          this.stop('failed');
          return;
        }
        opts.onRetry?.(r, self());
      },
      onResume: (r) => opts.onResume?.(r, self()),
      onRelist: (r) => opts.onRelist?.(r, self()),
    }) as Watcher<Unstructured> | Watcher<Table>;
    const seen = this.seen[index]!;
    const objects = (): Unstructured[] => [...(watcher as Watcher<Unstructured>).objects()];
    return {
      ...t,
      watcher,
      synced: opts.resourceVersion !== undefined,
      listed: false,
      objects,
      gone: () => {
        const present = new Set(objects().map(keyOf));
        return [...seen.entries()].filter(([key]) => !present.has(key)).map(([, o]) => o);
      },
    };
  }
}

/**
 * A source's events. A 404 once the type had been served (a list or an event came) means the type is
 * gone, as when its CustomResourceDefinition is deleted: `onGone` is told and this stream ends alone.
 */
async function* untilGone(s: MultiWatchSource, onGone: MultiWatchOptions['onGone']): AsyncGenerator<WatchEvent<Unstructured | Table>> {
  let served = false;
  try {
    for await (const ev of s.watcher as AsyncIterable<WatchEvent<Unstructured | Table>>) {
      served = true;
      yield ev;
    }
  } catch (e) {
    if (!served || !(e instanceof StatusError) || e.code !== 404) throw e;
    onGone?.(s, e);
  }
}

function keyOf(o: Unstructured): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}
