/**
 * One round trip, no retries: the request's URL and headers (credentials, impersonation, proxy
 * authorization), its time limit and abort signal, a connection from the pool, and the response head.
 * Also how a response's body is then read whole or discarded.
 */
import type { Clock } from '../core/clock.js';
import { USER_AGENT } from '../core/version.js';
import type { ClientCertificate, CredentialProvider, RestConfig } from '../kubeconfig/types.js';
import type { ConnectionPool } from './pool.js';
import { exchange as wireExchange, truncated, type WireRequest, type WireResponse } from './wire.js';
import { RequestTimeoutError, ResponseTooLargeError, goDuration, markNotSent } from './errors.js';
import type { Headers, RequestLog } from './request-log.js';
import type { RequestOptions } from './types.js';

/** A request whose response head has arrived. */
export interface Sent {
  res: WireResponse;
  url: string;
  started: number;
  done: () => void;
  /** Set when the request's time limit fired. */
  timedOut?: RequestTimeoutError;
}

export interface RoundTripOptions {
  /** The server URL without trailing slashes. */
  server: string;
  /** The credentials sent (none over plain http). */
  credentials: CredentialProvider;
  impersonate: RestConfig['impersonate'];
  /** The pool for a client certificate (the transport keeps one, replaced when the certificate changes). */
  pool(cert: ClientCertificate | undefined): ConnectionPool;
  clock: Clock;
  log: RequestLog;
  /** Every request's time limit unless it gives its own (ms, 0 = none): `--request-timeout`. */
  timeoutMs: number;
  /** How a timeout error names the setting behind `timeoutMs` (default `timeoutMs`). */
  timeoutSetting?: string;
}

export interface RoundTripper {
  /** The request's URL, with its query and client-go's `?timeout=`. */
  url(o: RequestOptions): string;
  /** Sends one request and resolves when the response head arrives. */
  send(o: RequestOptions, method: string, url: string): Promise<Sent>;
}

export function createRoundTripper(opts: RoundTripOptions): RoundTripper {
  const { server, credentials, clock, log } = opts;
  /** The request's time limit: its own, else `--request-timeout`, else its fallback (discovery: 32 s). */
  const timeoutOf = (o: RequestOptions): number => o.timeoutMs ?? (opts.timeoutMs || o.fallbackTimeoutMs || 0);
  /** What sets that limit, for the error: the request's own option, else the transport's (which replaces the fallback). */
  const timeoutSettingOf = (o: RequestOptions): string => (o.timeoutMs !== undefined ? 'timeoutMs' : (opts.timeoutSetting ?? 'timeoutMs'));

  return {
    url: (o) => requestUrl(server, o, timeoutOf(o)),
    async send(o, method, url) {
      const target = new URL(url);
      const headers = requestHeaders(o, target, await credentials.getAuthorization(), opts.impersonate);
      const pool = opts.pool(credentials.getClientCertificate ? await credentials.getClientCertificate() : undefined);
      const via = pool.absoluteTarget;
      if (via) Object.assign(headers, proxyAuthHeader(via));
      log.request(headers);
      const req: WireRequest = { method, target: via ? url : `${target.pathname}${target.search}`, headers, body: o.body };
      return sendOn(pool, req, url, { signal: o.signal, timeoutMs: timeoutOf(o), timeoutSetting: timeoutSettingOf(o) }, clock, log);
    },
  };
}

/** The request's URL, with its query and client-go's `?timeout=` (`timeoutMs`, 0 = none). */
function requestUrl(server: string, o: RequestOptions, timeoutMs: number): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.append(k, String(v));
  // client-go sends a request's timeout to the server too (request.go URL(): `?timeout=32s`).
  if (timeoutMs > 0 && !qs.has('timeout')) qs.append('timeout', goDuration(timeoutMs));
  const q = qs.toString();
  return `${server}${o.path.startsWith('/') ? '' : '/'}${o.path}${q ? `?${q}` : ''}`;
}

/** The request's headers: the caller's, kubectl's User-Agent, the credentials, impersonation and the body's length. */
function requestHeaders(o: RequestOptions, target: URL, authorization: string | undefined, imp: RestConfig['impersonate']): Headers {
  const h: Headers = { Host: target.host, Accept: 'application/json, */*', ...o.headers, 'User-Agent': USER_AGENT };
  if (authorization) h.Authorization = authorization;
  if (imp) {
    if (imp.user) h['Impersonate-User'] = imp.user;
    if (imp.uid) h['Impersonate-Uid'] = imp.uid;
    if (imp.groups?.length) h['Impersonate-Group'] = imp.groups;
    for (const [k, v] of Object.entries(imp.extra ?? {})) h[`Impersonate-Extra-${encodeURIComponent(k)}`] = v;
  }
  if (o.body !== undefined) h['Content-Length'] = Buffer.byteLength(o.body);
  else if (o.method === 'POST' || o.method === 'PUT' || o.method === 'PATCH') h['Content-Length'] = 0;
  return h;
}

/** What ends a request early: the caller's signal, and its time limit (ms, 0 = none) named by `timeoutSetting` when it fires. */
interface Limits {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  timeoutSetting: string;
}

/**
 * Sends `req` on a connection of `pool` and resolves when the response head arrives. The signal
 * and the time limit end it: before the head the request fails (marked not sent while no
 * connection was had), after it the body stream does.
 */
function sendOn(pool: ConnectionPool, req: WireRequest, url: string, limits: Limits, clock: Clock, log: RequestLog): Promise<Sent> {
  const { signal, timeoutMs } = limits;
  // Only a request with a time limit has a timer to cancel; ending it with a reason of our own:
  // abort() without one builds a DOMException (~0.1 ms, and ~0.5 ms for the first of a run).
  const timer = timeoutMs > 0 ? new AbortController() : undefined;
  const started = clock.now();
  return new Promise<Sent>((resolve, reject) => {
    let sent: Sent | undefined;
    let over = false;
    let socket: { destroy(): void } | undefined;
    const done = () => {
      timer?.abort(REQUEST_DONE);
      signal?.removeEventListener('abort', onAbort);
    };
    const failEarly = (e: Error) => {
      if (over) return;
      over = true;
      // Without a connection yet (dialling, TLS, waiting for the pool), nothing was written.
      if (!socket) markNotSent(e);
      socket?.destroy();
      done();
      log.failed(req.method, url, started);
      reject(e);
    };
    // Before the response head: the request fails; after it: its body stream does.
    const kill = (e: Error) => (sent ? sent.res.destroy(e) : failEarly(e));
    const onAbort = () => kill(signal!.reason instanceof Error ? signal!.reason : abortError());
    if (signal) {
      if (signal.aborted) return failEarly(signal.reason instanceof Error ? signal.reason : abortError());
      signal.addEventListener('abort', onAbort, { once: true });
    }
    if (timer) {
      clock.sleep(timeoutMs, timer.signal).then(
        () => {
          const err = new RequestTimeoutError(timeoutMs, limits.timeoutSetting);
          if (sent) sent.timedOut = err;
          kill(err);
        },
        () => undefined,
      );
    }
    pool.acquire().then(
      (s) => {
        if (over) return pool.release(s, false);
        socket = s;
        wireExchange(s, req, (reusable) => pool.release(s, reusable)).then(
          (res) => {
            if (over) return void res.destroy();
            sent = { res, url, started, done };
            resolve(sent);
          },
          failEarly,
        );
      },
      failEarly,
    );
  });
}

/** Why a request's timer stops: the request ended (no one reads it). */
const REQUEST_DONE = 'request done';

/** The whole body; `max` bytes at most (else ResponseTooLargeError, and the connection is closed). */
export function readBody(res: WireResponse, max: number | undefined, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => reject(e.message === 'aborted' ? truncated() : e);
    // The body may have failed before this listener was attached (a malformed chunk in the same
    // read as the headers): its 'error' event is gone, but the stream remembers it.
    if (res.errored) return failed(res.errored);
    if (res.destroyed) return reject(truncated());
    const tooLarge = () => {
      res.destroy();
      reject(new ResponseTooLargeError(what, max!));
    };
    if (max !== undefined && Number(header(res.headers['content-length']) ?? 0) > max) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (max !== undefined && size > max) return tooLarge();
      chunks.push(c);
    });
    res.on('end', () => (res.complete ? resolve(Buffer.concat(chunks)) : reject(truncated())));
    res.on('error', failed);
  });
}

/** Drains a response that will not be read (it is being sent again), releasing its connection. */
export function discard(s: Sent): void {
  s.res.resume();
  s.res.on('end', s.done);
  s.res.on('error', s.done);
}

/** A header's first value. */
export function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function abortError(): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

function proxyAuthHeader(proxy: URL): Record<string, string> {
  if (!proxy.username && !proxy.password) return {};
  const v = Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64');
  return { 'Proxy-Authorization': `Basic ${v}` };
}
