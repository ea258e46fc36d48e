/**
 * What a watch does after a failed list or watch request: the classifier (which failure is which)
 * and the rule for one run of failures (from the first failure to the next answer), on the injected
 * clock. The watcher (./watcher.ts) asks `FailureRun.decide` after each failure; everything that
 * watches (MultiWatch, `watch --for`, fleet watch, the live view, the informer) goes through it.
 *
 * - Retried for as long as they last: nothing answered (`unreachable`: refused, reset before a
 *   response), a connection lost after an answer, 429 and 5xx (`server`), a broken or empty stream.
 * - `denied` (401, 403, 404): the end of the watch with its error (kubectl's message), except while
 *   the watch is being re-established after a lost connection or a server error, when they are
 *   transient until they persist: a restarting kube-apiserver answers 403 while its RBAC cache syncs
 *   (measured: ~50-200 ms after it listens), 401 while its authenticators start, 404 for a
 *   collection whose handler is not installed yet (an aggregated API, a CRD). (A broken or empty
 *   stream alone does not count: a deleted CRD ends its stream so.) Retried then until they have
 *   lasted `retryForMs` (default 2 min), the last attempt at that bound; a Role revoked meanwhile
 *   still ends the watch, after the bound. On the first request, and on a re-watch after a healthy
 *   stream (a CRD deleted: 404 at once), they end the watch at once, as kubectl's.
 * - A restart (the run lost its connection): a `503` with Retry-After (kube-apiserver's answer
 *   before all its paths are installed: `Retry-After: 5`, ~50 ms before it serves them) and the
 *   transient answers are retried at the outage's pace, about every second (./backoff.ts
 *   `unreachable`), never later than the Retry-After: the request itself is the cheapest readiness
 *   probe (`/readyz` turns ok ~1.2 s after the paths are served). A 503 without a lost connection
 *   (an overloaded server, an aggregated API) and every 429 keep the server's Retry-After.
 * - Anything else (400, 422, a bug) ends the watch with its error.
 * The transport's own bounded retries of a request (src/transport/retry.ts: a refused connection,
 * a 503) count as failures of the run too (`retried`): a restart the transport rode out until the
 * new server answered 403 is still a restart.
 */
import type { Clock } from '../core/clock.js';
import { ConnectionError, KdynError, StatusError } from '../core/errors.js';
import { UNREACHABLE_BACKOFF, type FailureKind } from './backoff.js';
import { WatchDecodeError } from './decoder.js';

/** The server broke the watch protocol (not a WatchEvent, no resourceVersion): worth another try. */
export class WatchProtocolError extends KdynError {}

/** How long 401, 403 and 404 are retried while a watch is re-established (ms): 2 minutes. */
export const DEFAULT_RETRY_FOR_MS = 120_000;

/** Connection failures that mean nothing answered: the server is down, restarting or unreachable. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

export type FailureClass =
  /** Nothing answered: connection refused, reset, ... before the request's response. */
  | 'unreachable'
  /** The connection was lost after an answer (a stream cut), or failed otherwise. */
  | 'lost'
  /** 429 or 5xx. */
  | 'server'
  /** A broken, undecodable or empty stream. */
  | 'protocol'
  /** 401, 403, 404: transient only while a watch is re-established. */
  | 'denied'
  | 'fatal';

/** Which failure `e` is; `answered`: the failed request had got its response head. */
export function classifyFailure(e: unknown, answered = false): FailureClass {
  if (e instanceof ConnectionError) return !answered && UNREACHABLE_CODES.has(e.code ?? '') ? 'unreachable' : 'lost';
  if (e instanceof StatusError) {
    const c = e.code;
    if (c === 429 || c >= 500) return 'server';
    return c === 401 || c === 403 || c === 404 ? 'denied' : 'fatal';
  }
  return e instanceof WatchDecodeError || e instanceof WatchProtocolError ? 'protocol' : 'fatal';
}

/** What to do after a failure. */
export type Decision =
  | { retry: false }
  | {
      retry: true;
      /** The backoff to draw the wait from. */
      kind: FailureKind;
      /** The server's Retry-After (s), when the wait follows it. */
      retryAfterSeconds?: number;
      /** The longest wait (ms): the bound of a transient answer, or the pace of a restart. */
      maxDelayMs?: number;
      /** A transient answer (401, 403, 404): the watch ends if it lasts this long (ms). */
      retryForMs?: number;
    };

/**
 * One run of failures, from the first failed request to the next answer. `contacted()` once any
 * request was answered (before that, every connection failure and denial ends the watch: a wrong
 * address, certificate or right, as kubectl reports at once).
 */
export class FailureRun {
  private contactedOnce = false;
  /** When the run began; undefined while requests succeed. */
  private since: number | undefined;
  /** The run includes a lost connection or a server error: the watch is being re-established. */
  private reestablishing = false;
  /** The run lost its connection: the server is probably restarting. */
  private restarting = false;
  /** When the first transient answer of the run came. */
  private deniedSince: number | undefined;

  constructor(
    private readonly clock: Clock,
    /** How long 401/403/404 are retried while re-establishing (ms); 0: they end the watch at once. */
    readonly retryForMs: number = DEFAULT_RETRY_FOR_MS,
  ) {}

  /** A request was answered: the run is over. Returns how long it lasted (ms), if there was one. */
  answered(): number | undefined {
    this.contactedOnce = true;
    const since = this.since;
    this.since = this.deniedSince = undefined;
    this.reestablishing = this.restarting = false;
    return since === undefined ? undefined : this.clock.now() - since;
  }

  get contacted(): boolean {
    return this.contactedOnce;
  }

  /** Whether the server is probably restarting (the run lost its connection): its Retry-After is probed sooner. */
  get restart(): boolean {
    return this.restarting;
  }

  /** The longest wait on a Retry-After before a request is sent again (ms), while restarting. */
  get retryAfterMaxMs(): number | undefined {
    return this.restarting ? UNREACHABLE_BACKOFF.maxMs : undefined;
  }

  /**
   * The transport sent a request of the watch again after `cls` (its own bounded retries, which the
   * watcher does not see fail): the run includes that failure, so a 401, 403 or 404 after it is
   * transient as after one the watcher met. Before the first answer it changes nothing.
   */
  retried(cls: 'unreachable' | 'server'): void {
    if (this.contactedOnce) this.record(cls, this.clock.now());
  }

  /** A failure that is retried joins the run: its start, and whether the connection was lost (a restart) or the watch is being re-established. */
  private record(cls: Exclude<FailureClass, 'denied' | 'fatal'>, now: number): void {
    this.since ??= now;
    if (cls === 'unreachable' || cls === 'lost') this.restarting = true;
    if (cls !== 'protocol') this.reestablishing = true;
  }

  /** Records the failure `e` (of class `cls`) and decides whether and how to retry. */
  decide(e: unknown, cls: FailureClass): Decision {
    const now = this.clock.now();
    if (cls === 'fatal') return { retry: false };
    // Before the server answered once, a connection failure is a wrong address or certificate.
    if (!this.contactedOnce && (cls === 'unreachable' || cls === 'lost')) return { retry: false };
    if (cls === 'denied') {
      if (!this.contactedOnce || !this.reestablishing || this.retryForMs <= 0) return { retry: false };
      this.deniedSince ??= now;
      const left = this.deniedSince + this.retryForMs - now;
      if (left <= 0) return { retry: false };
      return { retry: true, kind: this.restarting ? 'unreachable' : 'server', maxDelayMs: left, retryForMs: this.retryForMs };
    }
    this.record(cls, now);
    const retryAfterSeconds = retryAfterOf(e);
    if (cls === 'server' && this.restarting && retryAfterSeconds !== undefined && (e as StatusError).code === 503) {
      return { retry: true, kind: 'unreachable', maxDelayMs: retryAfterSeconds * 1000 };
    }
    return { retry: true, kind: cls === 'unreachable' ? 'unreachable' : 'server', retryAfterSeconds };
  }
}

/** The Retry-After of a 429, 500 or 503 (seconds), as the server or the transport put it in the Status. */
function retryAfterOf(e: unknown): number | undefined {
  if (!(e instanceof StatusError)) return undefined;
  const c = e.code;
  if (c !== 429 && c !== 500 && c !== 503) return undefined;
  return e.status.details?.retryAfterSeconds;
}
