/**
 * The Transport: one keep-alive pool per cluster (./pool.ts) speaking HTTP/1.1 (./wire.ts) over the
 * connections ./dial.ts opens with the kubeconfig's TLS settings and proxies; credentials,
 * `--request-timeout`, bounded retries for idempotent requests, the 401 credential refresh, and
 * kubectl-style `-v=6..8` request logging (credentials redacted).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { USER_AGENT } from '../core/version.js';
import type { ClientCertificate, CredentialProvider, RestConfig } from '../kubeconfig/types.js';
import { noCredentials } from '../kubeconfig/credentials.js';
import { createDialer, type DialTimeouts } from './dial.js';
import { caBundleProblem } from './tls-verify.js';
import { ConfigError } from '../core/errors.js';
import { ConnectionPool } from './pool.js';
import { statusText } from './status-text.js';
import { exchange as wireExchange, truncated, type WireResponse } from './wire.js';
import { RequestTimeoutError, ResponseTooLargeError, goDuration, isRetriableNetworkError, toConnectionError } from './errors.js';
import { proxyDisplay, selectProxy, type ProxyChoice } from './proxy.js';
import { retryDelay, type RetryPolicy, DEFAULT_RETRY } from './retry.js';
import type { RequestOptions, Response, StreamResponse, Transport } from './types.js';

export interface TransportOptions {
  logger: Logger;
  clock: Clock;
  /** For HTTPS_PROXY/HTTP_PROXY/NO_PROXY. */
  env: Record<string, string | undefined>;
  /** Every request's time limit unless it gives its own (ms, 0 = none): `--request-timeout`. */
  timeoutMs: number;
  /**
   * How a timeout error names the setting behind `timeoutMs` (`see ...`): the caller's own word for it
   * (the CLI: `--request-timeout`; connect(): `requestTimeoutMs`). Default `timeoutMs`.
   */
  timeoutSetting?: string;
  retry?: Partial<RetryPolicy>;
  /** Jitter source (tests pass a constant). */
  random?: () => number;
  /** Connect, TLS handshake and proxy CONNECT bounds (client-go's defaults unless given). */
  timeouts?: Partial<DialTimeouts>;
  /** See ./dial.ts DialOptions `verification` (tests). */
  verification?: 'openssl';
}

/** RequestOptions plus a flag to allow retries for a non-GET request that is safe to repeat. */
export type TransportRequest = RequestOptions & { idempotent?: boolean };

type Headers = Record<string, string | number | string[] | undefined>;

interface Sent {
  res: WireResponse;
  url: string;
  started: number;
  done: () => void;
  /** Set when the request's time limit fired. */
  timedOut?: RequestTimeoutError;
}

const SENSITIVE = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export function createTransport(config: RestConfig, opts: TransportOptions): Transport {
  const { logger, clock } = opts;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const random = opts.random ?? Math.random;
  const server = config.server.replace(/\/+$/, '');
  const serverUrl = new URL(server);
  if (config.tls.caData && !config.tls.insecure) {
    const problem = caBundleProblem(config.tls.caData);
    if (problem) throw new ConfigError(`unable to load root certificates: ${problem} (${config.tls.caSource ?? 'certificate-authority'})`);
  }
  const proxy: ProxyChoice | undefined = selectProxy(server, config.proxyUrl, opts.env);
  if (proxy) logger.info(6, `Using proxy ${proxyDisplay(proxy.url)} (${proxy.source}) for ${serverUrl.host}`, 'transport.go:1');

  // As clientcmd: user credentials apply only to TLS transports. Over plain http nothing is asked
  // of the provider: no token read, no exec plugin run, no client certificate. (Impersonation
  // headers are not credentials; kubectl sends them over http too.)
  const tlsTransport = serverUrl.protocol === 'https:';
  if (!tlsTransport && (config.credentials.kind !== 'none' || config.tls.certData)) {
    logger.info(6, `Not sending credentials to ${serverUrl.protocol}//${serverUrl.host}: user credentials (${credentialKinds(config).join(', ')}) are used only over https`, 'client_config.go:1');
  }
  const credentials: CredentialProvider = tlsTransport ? config.credentials : noCredentials;

  let pool: ConnectionPool | undefined;
  let poolCert: ClientCertificate | undefined;
  const poolFor = (cert: ClientCertificate | undefined): ConnectionPool => {
    if (!pool || cert !== poolCert) {
      pool?.close();
      pool = new ConnectionPool(
        createDialer(server, config.tls, { proxy, cert, timeouts: opts.timeouts, verification: opts.verification, log: (m) => logger.info(6, m, 'transport.go:1') }),
      );
      poolCert = cert;
    }
    return pool;
  };
  const clientCertificate = async (): Promise<ClientCertificate | undefined> =>
    credentials.getClientCertificate ? await credentials.getClientCertificate() : undefined;

  const buildHeaders = async (o: RequestOptions, target: URL): Promise<Headers> => {
    const h: Headers = { Host: target.host, Accept: 'application/json, */*', ...o.headers, 'User-Agent': USER_AGENT };
    const auth = await credentials.getAuthorization();
    if (auth) h.Authorization = auth;
    const imp = config.impersonate;
    if (imp) {
      if (imp.user) h['Impersonate-User'] = imp.user;
      if (imp.uid) h['Impersonate-Uid'] = imp.uid;
      if (imp.groups?.length) h['Impersonate-Group'] = imp.groups;
      for (const [k, v] of Object.entries(imp.extra ?? {})) h[`Impersonate-Extra-${encodeURIComponent(k)}`] = v;
    }
    if (o.body !== undefined) h['Content-Length'] = Buffer.byteLength(o.body);
    else if (o.method === 'POST' || o.method === 'PUT' || o.method === 'PATCH') h['Content-Length'] = 0;
    return h;
  };

  /** The request's time limit: its own, else `--request-timeout`, else its fallback (discovery: 32 s). */
  const timeoutOf = (o: RequestOptions): number => o.timeoutMs ?? (opts.timeoutMs || o.fallbackTimeoutMs || 0);
  /** What sets that limit, for the error: the request's own option, else the transport's (which replaces the fallback). */
  const timeoutSettingOf = (o: RequestOptions): string => (o.timeoutMs !== undefined ? 'timeoutMs' : (opts.timeoutSetting ?? 'timeoutMs'));

  const urlFor = (o: RequestOptions): string => {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.append(k, String(v));
    // client-go sends a request's timeout to the server too (request.go URL(): `?timeout=32s`).
    const timeoutMs = timeoutOf(o);
    if (timeoutMs > 0 && !qs.has('timeout')) qs.append('timeout', goDuration(timeoutMs));
    const q = qs.toString();
    return `${server}${o.path.startsWith('/') ? '' : '/'}${o.path}${q ? `?${q}` : ''}`;
  };

  /** Sends one request and resolves when the response headers arrive. */
  const send = async (o: RequestOptions, method: string, url: string): Promise<Sent> => {
    const target = new URL(url);
    const headers = await buildHeaders(o, target);
    const p = poolFor(await clientCertificate());
    const via = p.absoluteTarget;
    if (via) Object.assign(headers, proxyAuthHeader(via));
    if (logger.enabled(7)) logHeaders(logger, 'Request Headers:', headers);
    const timeoutMs = timeoutOf(o);
    const timer = new AbortController();
    const started = clock.now();
    return new Promise<Sent>((resolve, reject) => {
      let sent: Sent | undefined;
      let over = false;
      let socket: { destroy(): void } | undefined;
      const done = () => {
        timer.abort();
        o.signal?.removeEventListener('abort', onAbort);
      };
      const failEarly = (e: Error) => {
        if (over) return;
        over = true;
        socket?.destroy();
        done();
        if (logger.enabled(6)) logger.info(6, `${method} ${url}  in ${clock.now() - started} milliseconds`, 'round_trippers.go:560');
        reject(e);
      };
      // Before the response head: the request fails; after it: its body stream does.
      const kill = (e: Error) => (sent ? sent.res.destroy(e) : failEarly(e));
      const onAbort = () => kill(o.signal!.reason instanceof Error ? o.signal!.reason : abortError());
      if (o.signal) {
        if (o.signal.aborted) return failEarly(o.signal.reason instanceof Error ? o.signal.reason : abortError());
        o.signal.addEventListener('abort', onAbort, { once: true });
      }
      if (timeoutMs > 0) {
        clock.sleep(timeoutMs, timer.signal).then(
          () => {
            const err = new RequestTimeoutError(timeoutMs, timeoutSettingOf(o));
            if (sent) sent.timedOut = err;
            kill(err);
          },
          () => undefined,
        );
      }
      p.acquire().then(
        (s) => {
          if (over) return p.release(s, false);
          socket = s;
          const req = { method, target: via ? url : `${target.pathname}${target.search}`, headers, body: o.body };
          wireExchange(s, req, (reusable) => p.release(s, reusable)).then(
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
  };

  const logResponse = (method: string, s: Sent): void => {
    if (!logger.enabled(6)) return;
    const code = s.res.statusCode;
    logger.info(6, `${method} ${s.url} ${code} ${statusText(code)} in ${clock.now() - s.started} milliseconds`, 'round_trippers.go:560');
    if (logger.enabled(8)) logHeaders(logger, 'Response Headers:', s.res.headers);
  };

  /** Retries, 401 refresh and error mapping shared by request() and stream(). */
  const exchange = async (o: TransportRequest): Promise<Sent> => {
    const method = o.method ?? 'GET';
    const idempotent = method === 'GET' || o.idempotent === true;
    const url = urlFor(o);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      let sent: Sent;
      try {
        sent = await send(o, method, url);
      } catch (e) {
        if (o.signal?.aborted) throw o.signal.reason ?? e;
        if (idempotent && attempt < policy.maxRetries && isRetriableNetworkError(e)) {
          const delay = retryDelay(attempt, undefined, policy, random);
          logger.info(4, `${method} ${url}: ${(e as Error).message}; retrying in ${delay}ms (attempt ${attempt + 1}/${policy.maxRetries})`, 'request.go:1');
          await clock.sleep(delay, o.signal);
          continue;
        }
        throw toConnectionError(e, serverUrl.host, `${method} ${url}`);
      }
      logResponse(method, sent);
      const status = sent.res.statusCode;
      if (status === 401 && !refreshed && (await credentials.refreshAfterUnauthorized())) {
        refreshed = true;
        discard(sent);
        attempt--;
        continue;
      }
      const retryAfter = header(sent.res.headers['retry-after']);
      // GETs are sent again after any 429 or 503; other requests, as client-go does (rest/with_retry.go
      // checkWait), after a 429 or 5xx that carries Retry-After: the server asks to be asked again (an
      // overloaded server's priority-and-fairness answer), and a body of bytes can be resent.
      const again = idempotent ? status === 429 || status === 503 : retryAfter !== undefined && (status === 429 || status >= 500);
      if (again && attempt < policy.maxRetries) {
        const delay = retryDelay(attempt, retryAfter, policy, random);
        logger.info(4, `${method} ${url}: got ${status}; retrying in ${delay}ms (attempt ${attempt + 1}/${policy.maxRetries})`, 'request.go:1');
        discard(sent);
        await clock.sleep(delay, o.signal);
        continue;
      }
      return sent;
    }
  };

  const collect = async (o: TransportRequest): Promise<Response> => {
    const method = o.method ?? 'GET';
    const idempotent = method === 'GET' || o.idempotent === true;
    for (let attempt = 0; ; attempt++) {
      const sent = await exchange(o);
      try {
        const body = await readBody(sent.res, o.maxBodyBytes, o.path);
        sent.done();
        return { status: sent.res.statusCode, headers: sent.res.headers, body, url: sent.url };
      } catch (e) {
        sent.done();
        if (sent.timedOut) throw toConnectionError(sent.timedOut, serverUrl.host, `${method} ${sent.url}`);
        // A connection reset mid-body is retried like one before the headers.
        if (idempotent && attempt < policy.maxRetries && isRetriableNetworkError(e) && !o.signal?.aborted) {
          await clock.sleep(retryDelay(attempt, undefined, policy, random), o.signal);
          continue;
        }
        if (o.signal?.aborted) throw o.signal.reason ?? e;
        throw toConnectionError(e, serverUrl.host, `${method} ${sent.url}`);
      }
    }
  };

  return {
    server,
    request: (o) => collect(o),
    async stream(o: TransportRequest): Promise<StreamResponse> {
      const method = o.method ?? 'GET';
      const sent = await exchange(o);
      const close = () => {
        sent.done();
        sent.res.destroy();
      };
      async function* body(): AsyncGenerator<Buffer> {
        try {
          for await (const chunk of sent.res as AsyncIterable<Buffer>) yield chunk;
          if (!sent.res.complete) throw truncated();
        } catch (e) {
          if (o.signal?.aborted) throw o.signal.reason ?? e;
          throw toConnectionError(sent.timedOut ?? e, serverUrl.host, `${method} ${sent.url}`);
        } finally {
          close();
        }
      }
      return { status: sent.res.statusCode, headers: sent.res.headers, body: body(), url: sent.url, close };
    },
    preconnect() {
      // Only when the credentials need no work first (a client certificate from an exec plugin does).
      if (!credentials.getClientCertificate) poolFor(undefined).preconnect();
    },
    close() {
      pool?.close();
      pool = undefined;
    },
  };
}

/** What a config would send as credentials, for the -v=6 note (kinds only, never values). */
function credentialKinds(config: RestConfig): string[] {
  const kinds: string[] = [];
  if (config.credentials.kind !== 'none') kinds.push(config.credentials.kind);
  if (config.tls.certData) kinds.push('client certificate');
  return kinds;
}

/** The whole body; `max` bytes at most (else ResponseTooLargeError, and the connection is closed). */
function readBody(res: WireResponse, max: number | undefined, what: string): Promise<Buffer> {
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

function abortError(): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}


function discard(s: Sent): void {
  s.res.resume();
  s.res.on('end', s.done);
  s.res.on('error', s.done);
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function proxyAuthHeader(proxy: URL): Record<string, string> {
  if (!proxy.username && !proxy.password) return {};
  const v = Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64');
  return { 'Proxy-Authorization': `Basic ${v}` };
}

/** kubectl's -v=7/8 header dump; credentials masked as kubectl does (`Bearer <masked>`). */
function logHeaders(logger: Logger, title: string, headers: Headers | IncomingHttpHeaders): void {
  logger.info(7, title, 'round_trippers.go:1');
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const values = Array.isArray(v) ? v : [String(v)];
    for (const value of values) logger.info(7, `    ${k}: ${redact(k, String(value))}`, 'round_trippers.go:1');
  }
}

export function redact(name: string, value: string): string {
  if (!SENSITIVE.has(name.toLowerCase())) return value;
  const scheme = /^(\w+)\s/.exec(value)?.[1];
  return scheme ? `${scheme} <masked>` : '<masked>';
}
