/**
 * Watch events and the watcher's options. An event is what the API server sends
 * (`{"type":"MODIFIED","object":{...}}`), or what the watcher made up after a relist so that its
 * consumer never misses nor repeats a change (src/watch/watcher.ts).
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Unstructured } from '../core/unstructured.js';
import type { Table } from '../core/table.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T = Unstructured> {
  type: EventType;
  /**
   * The object (a one-row meta.k8s.io Table with `table: true`). A BOOKMARK carries only
   * `metadata.resourceVersion`; the watcher's own BOOKMARK after each (re)list is annotated
   * `k8s.io/initial-events-end: "true"`, as the server's after `sendInitialEvents`.
   */
  object: T;
}

/** The annotation on the BOOKMARK that follows the initial events (and every relist). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Watch one object by name (a `metadata.name=` field selector, combined with `fieldSelector`). */
  name?: string;
  /**
   * Start watching after this resourceVersion, without the initial list (changes since RV only).
   * Default: list first (paged), then watch from the list's resourceVersion.
   */
  resourceVersion?: string;
  /** Emit the initial list as ADDED events (default true; false: kubectl's `--watch-only`). */
  initialEvents?: boolean;
  /** Also yield BOOKMARK events (the server's, and one after each (re)list). Default false. */
  bookmarks?: boolean;
  /** Server-side printing: every object is a one-row meta.k8s.io Table (`includeObject=Metadata`). */
  table?: boolean;
  /** Page size of the list (default 500; 0: one request). */
  pageSize?: number;
  /**
   * Bounds each watch request (ms, as `--request-timeout`): the request asks the server for
   * `timeoutSeconds` (rounded up) and the watcher drops the stream at this limit. Reaching it is a
   * normal end: the watch resumes from the last resourceVersion (no backoff, no retry notice).
   * Default: the server's randomised 5-10 min, and a dead stream dropped 30 s after that.
   */
  requestTimeoutMs?: number;
  /**
   * End the iteration (no error) when a watch request ends normally, at `requestTimeoutMs` or when
   * the server closes it: kubectl's `get -w --request-timeout` (UntilWithoutRetry). Failures are
   * still retried. Default false: the watch resumes and never ends on its own.
   */
  endWithRequest?: boolean;
  /**
   * How long a 401, 403 or 404 is retried while the watch is re-established after a lost connection
   * or a server error (ms; default 2 minutes, `DEFAULT_RETRY_FOR_MS`; 0: such an answer ends the
   * watch at once). A restarting kube-apiserver answers 403 while its RBAC cache syncs; an answer
   * that lasts this long (a revoked Role) ends the watch with its error. On the first request, and
   * after a healthy stream (a CRD deleted: 404), these answers end the watch at once (./failures.ts).
   */
  retryForMs?: number;
  /** Stops the watch: the iteration ends (no error). */
  signal?: AbortSignal;
  clock?: Clock;
  /** Jitter source (default Math.random). */
  random?: () => number;
  logger?: Logger;
  /** Called before each wait after a failure (connection lost, 5xx, 429, a broken stream, a transient 401/403/404). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Called when the server said 410 Expired and the watcher relists. After a list the events are
   * the differences against what was emitted; before one (a watch from `resourceVersion`), every
   * current object comes as ADDED.
   */
  onRelist?: (info: RelistInfo) => void;
  /** Called when a list or watch request is answered again after failures (the server is back). */
  onResume?: (info: ResumeInfo) => void;
}

export interface RelistInfo {
  /** The 410 (an Error whose message is the server's). */
  error: Error;
  /** The resourceVersion that expired. */
  resourceVersion?: string;
}

export interface ResumeInfo {
  /** The failed attempts before this answer. */
  failures: number;
  /** From the first of those failures to this answer (ms, on the watcher's clock). */
  failingMs: number;
}

export interface RetryInfo {
  error: unknown;
  /** How long the watcher waits before the next attempt (ms). */
  delayMs: number;
  /** Consecutive failures so far (1 for the first). */
  failures: number;
  /** Whether the next attempt is a relist (after 410 Expired) or a watch from the last version. */
  next: 'list' | 'watch';
  /**
   * Nothing answered (connection refused, reset, ... before a response): the server is down or
   * restarting, and the watcher retries about every second. False when the server answered with an
   * error (429, 5xx, 401, 403, 404) or broke a stream: client-go's backoff, 0.8 s growing to 30 s
   * (about every second while a restart is under way: see src/watch/failures.ts).
   */
  unreachable: boolean;
  /**
   * Set for a 401, 403 or 404 answered while the watch is re-established after a lost connection or
   * a server error: such an answer ends the watch once it has lasted this long (ms, `retryForMs`).
   */
  retryForMs?: number;
}

export type TableEvent = WatchEvent<Table>;
