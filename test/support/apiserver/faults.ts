/**
 * Injected faults, switchable in process (`server.faults....`) and from the command line
 * (`--fault SPEC`, parsed by parseFaultSpec):
 * - a matching request is answered with a canned response (429/500/503 with Retry-After, any
 *   status, a redirect to another host), or its connection is reset, before authentication and
 *   routing; or it is delayed, its body dripped slowly, its connection reset mid-body, or handled and
 *   then its connection closed without an answer (dropResponse);
 * - one group-version answers 503, or is reported `Stale` in aggregated discovery;
 * - `/apis` (and `/api`) serve a hostile discovery document;
 * - watch streams are cut short (after N events or a time);
 * - the server "restarts" (same objects, watch history gone).
 */
import type { WatchFaults } from './watch.js';

export interface FaultSpec {
  /** Only requests with this method (any when unset). */
  method?: string;
  /** Exact path (without query) or a RegExp tested against path + '?' + query. */
  path: string | RegExp;
  /** Status to answer with (default 500 when neither reset, delay, drip, reset-mid-body nor redirect). */
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** How many matching requests to affect (default: unlimited). */
  times?: number;
  /** Destroy the socket instead of answering. */
  reset?: boolean;
  /**
   * Wait this long first (on the server's clock: with a FakeClock the test advances it); with no
   * status and no reset, the request then proceeds normally.
   */
  delayMs?: number;
  /** Answer normally, but write the body `bytes` at a time with `intervalMs` pauses (server clock). */
  drip?: { bytes: number; intervalMs: number };
  /** Answer normally (with Content-Length), but reset the connection after this many body bytes. */
  resetAfterBytes?: number;
  /**
   * Handle the request normally (a write is committed), then close the connection instead of
   * answering: a server that died between committing and responding (EOF before the response).
   */
  dropResponse?: boolean;
  /** Answer 302 (or `status`) with `Location: <redirect><path>?<query>` (another host). */
  redirect?: string;
}

export interface Fault extends FaultSpec {
  /** Requests this fault has affected so far. */
  hits: number;
}

/** What a hostile discovery document carries. */
export type HostileDiscovery = 'slash' | 'dotdot' | 'nul' | 'long' | 'huge' | 'invalid-json';
export const HOSTILE_DISCOVERY: readonly HostileDiscovery[] = ['slash', 'dotdot', 'nul', 'long', 'huge', 'invalid-json'];

/** Standard messages of kube-apiserver's own 429/500/503 answers. */
const MESSAGES: Record<number, string> = {
  429: 'Too many requests, please try again later.',
  500: 'Internal error occurred: injected fault',
  503: 'The server is currently unable to handle the request',
};

export class Faults {
  private list: Fault[] = [];
  /** Applies to watch streams started from now on; `{}` = none. */
  watch: WatchFaults = {};
  /** Group-versions (`apps/v1`, `v1` for core) that answer 503, or are reported Stale. */
  readonly groupVersions = new Map<string, 'unavailable' | 'stale'>();
  /** A hostile document served for `/apis` and `/api` (legacy and aggregated). */
  discovery: HostileDiscovery | undefined;
  /** Groups left out of the next N `/apis` documents, by group (a new CRD's group published late). */
  readonly lateGroups = new Map<string, number>();
  private onRestart: () => void;

  constructor(onRestart: () => void = () => {}) {
    this.onRestart = onRestart;
  }

  /** The groups this `/apis` document leaves out (each one's count goes down by one). */
  takeLateGroups(): string[] {
    const out = [...this.lateGroups.keys()];
    for (const g of out) {
      const left = this.lateGroups.get(g)! - 1;
      if (left > 0) this.lateGroups.set(g, left);
      else this.lateGroups.delete(g);
    }
    return out;
  }

  add(spec: FaultSpec): Fault {
    const f: Fault = { ...spec, hits: 0 };
    this.list.push(f);
    return f;
  }

  /**
   * The next `times` requests matching `path` (a path prefix, or a RegExp) answer `status` (429,
   * 500, 503, ...) with a Status body as kube-apiserver writes it and, when given, Retry-After.
   */
  failNext(o: { status: number; path: string | RegExp; times?: number; retryAfterSeconds?: number; method?: string }): Fault {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-cache, private' };
    const details: Record<string, unknown> = {};
    if (o.retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(o.retryAfterSeconds);
      details.retryAfterSeconds = o.retryAfterSeconds;
    }
    const reason = o.status === 429 ? 'TooManyRequests' : o.status === 503 ? 'ServiceUnavailable' : o.status >= 500 ? 'InternalError' : undefined;
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: MESSAGES[o.status] ?? `injected fault (${o.status})`,
      ...(reason ? { reason } : {}),
      ...(Object.keys(details).length ? { details } : {}),
      code: o.status,
    });
    return this.add({ method: o.method, path: prefixMatcher(o.path), status: o.status, headers, body, times: o.times });
  }

  /** Requests under `gv` (`apps/v1`, or `v1` for the core group) answer 503; `stale`: reported Stale in aggregated discovery. */
  failGroupVersion(gv: string, how: 'unavailable' | 'stale' = 'unavailable'): void {
    this.groupVersions.set(gv, how);
  }

  /** The group-version a path addresses, when a fault makes it unavailable. */
  unavailableGroupVersion(path: string): string | undefined {
    for (const [gv, how] of this.groupVersions) {
      if (how !== 'unavailable') continue;
      const prefix = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
      if (path === prefix || path.startsWith(`${prefix}/`)) return gv;
    }
    return undefined;
  }

  /** Close each watch stream started from now on after `n` events (bookmarks included). */
  closeWatchesAfterEvents(n: number): void {
    this.watch = { ...this.watch, closeAfterEvents: n };
  }

  /** Close each watch stream started from now on `ms` after it started (server clock). */
  closeWatchesAfterMs(ms: number): void {
    this.watch = { ...this.watch, closeAfterMs: ms };
  }

  /**
   * As an API server restart: open watch streams end, the objects stay, the watch history is gone
   * (a watch from an older resourceVersion gets 410 Expired).
   */
  restart(): void {
    this.onRestart();
  }

  clear(): void {
    this.list = [];
    this.watch = {};
    this.groupVersions.clear();
    this.discovery = undefined;
  }

  get active(): readonly Fault[] {
    return this.list;
  }

  /** The first fault matching the request (counting it as used), if any. */
  take(method: string, path: string, query: string): Fault | undefined {
    for (const f of this.list) {
      if (f.times !== undefined && f.hits >= f.times) continue;
      if (f.method && f.method.toUpperCase() !== method.toUpperCase()) continue;
      const ok = typeof f.path === 'string' ? f.path === path : f.path.test(query ? `${path}?${query}` : path);
      if (!ok) continue;
      f.hits++;
      return f;
    }
    return undefined;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A path prefix as a matcher of `path?query` (`/api/v1` matches `/api/v1/pods?limit=1`). */
function prefixMatcher(p: string | RegExp): RegExp {
  return typeof p === 'string' ? new RegExp(`^${escapeRegExp(p)}(?:[/?]|$)`) : p;
}

/**
 * Parses one `--fault` value: comma-separated `key=value` pairs.
 *   status=503,path=/api/v1,times=3,retry-after=2    answer 503 (also 429, 500, ...) N times
 *   reset,path=/version[,times=N]                     reset the connection
 *   reset-after-bytes=100,path=/api/v1/pods           reset mid-body
 *   drop-response,method=PATCH,path=/api/v1           handled (committed), then closed without an answer
 *   delay=500,path=/apis                              delay (ms)
 *   drip=16:50,path=/apis                             16 bytes every 50 ms
 *   redirect=http://other:8080,path=/version          302 to another host
 *   gv-unavailable=apps/v1 | gv-stale=apps/v1         one group-version 503 / Stale
 *   hostile-discovery=slash|dotdot|nul|long|huge|invalid-json
 *   watch-close-after-events=N | watch-close-after=MS
 * Throws an Error naming the bad part.
 */
export function applyFaultSpec(faults: Faults, text: string): void {
  const kv = new Map<string, string>();
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    kv.set(i < 0 ? part : part.slice(0, i), i < 0 ? '' : part.slice(i + 1));
  }
  const num = (k: string): number | undefined => {
    const v = kv.get(k);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new Error(`--fault ${text}: ${k} must be a non-negative integer, got "${v}"`);
    return Number(v);
  };
  const known = new Set(['status', 'path', 'times', 'retry-after', 'method', 'reset', 'reset-after-bytes', 'drop-response', 'delay', 'drip', 'redirect', 'gv-unavailable', 'gv-stale', 'hostile-discovery', 'watch-close-after-events', 'watch-close-after']);
  for (const k of kv.keys()) if (!known.has(k)) throw new Error(`--fault ${text}: unknown key "${k}"`);
  if (kv.has('gv-unavailable')) return faults.failGroupVersion(kv.get('gv-unavailable')!, 'unavailable');
  if (kv.has('gv-stale')) return faults.failGroupVersion(kv.get('gv-stale')!, 'stale');
  if (kv.has('hostile-discovery')) {
    const h = kv.get('hostile-discovery') as HostileDiscovery;
    if (!HOSTILE_DISCOVERY.includes(h)) throw new Error(`--fault ${text}: hostile-discovery must be one of ${HOSTILE_DISCOVERY.join(', ')}`);
    faults.discovery = h;
    return;
  }
  if (kv.has('watch-close-after-events')) return faults.closeWatchesAfterEvents(num('watch-close-after-events')!);
  if (kv.has('watch-close-after')) return faults.closeWatchesAfterMs(num('watch-close-after')!);
  const path = kv.get('path');
  if (!path) throw new Error(`--fault ${text}: path=... is required`);
  const times = num('times');
  const method = kv.get('method');
  const status = num('status');
  if (status !== undefined && !kv.has('redirect')) {
    faults.failNext({ status, path, times, retryAfterSeconds: num('retry-after'), method });
    return;
  }
  const spec: FaultSpec = { path: prefixMatcher(path), times, method };
  if (kv.has('reset')) spec.reset = true;
  if (kv.has('reset-after-bytes')) spec.resetAfterBytes = num('reset-after-bytes');
  if (kv.has('drop-response')) spec.dropResponse = true;
  if (kv.has('delay')) spec.delayMs = num('delay');
  if (kv.has('drip')) {
    const m = /^(\d+):(\d+)$/.exec(kv.get('drip')!);
    if (!m) throw new Error(`--fault ${text}: drip must be BYTES:INTERVAL_MS`);
    spec.drip = { bytes: Math.max(1, Number(m[1])), intervalMs: Number(m[2]) };
  }
  if (kv.has('redirect')) {
    spec.redirect = kv.get('redirect')!;
    if (status !== undefined) spec.status = status;
  }
  if (!spec.reset && spec.resetAfterBytes === undefined && spec.delayMs === undefined && !spec.drip && !spec.redirect) {
    throw new Error(`--fault ${text}: nothing to do (give status, reset, reset-after-bytes, delay, drip or redirect)`);
  }
  faults.add(spec);
}
