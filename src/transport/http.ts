/**
 * The Transport over node:http/node:https: one keep-alive pool per cluster, the kubeconfig's TLS and
 * credentials, proxies, `--request-timeout`, bounded retries for idempotent requests, the 401
 * credential refresh, and kubectl-style `-v=6..8` request logging (credentials redacted).
 */
import { request as httpRequest, STATUS_CODES, type IncomingMessage, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { USER_AGENT } from '../core/version.js';
import type { ClientCertificate, RestConfig } from '../kubeconfig/types.js';
import { createRoute, type Route } from './agent.js';
import { RequestTimeoutError, isRetriableNetworkError, toConnectionError } from './errors.js';
import { proxyDisplay, selectProxy, type ProxyChoice } from './proxy.js';
import { retryDelay, type RetryPolicy, DEFAULT_RETRY } from './retry.js';
import type { RequestOptions, Response, StreamResponse, Transport } from './types.js';

export interface TransportOptions {
  logger: Logger;
  clock: Clock;
  /** For HTTPS_PROXY/HTTP_PROXY/NO_PROXY. */
  env: Record<string, string | undefined>;
  /** `--request-timeout` in ms; 0 = none. */
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** Jitter source (tests pass a constant). */
  random?: () => number;
}

/** RequestOptions plus a flag to allow retries for a non-GET request that is safe to repeat. */
export type TransportRequest = RequestOptions & { idempotent?: boolean };

interface Sent {
  res: IncomingMessage;
  req: ClientRequest;
  url: string;
  started: number;
  done: () => void;
  /** Set when --request-timeout fired. */
  timedOut?: RequestTimeoutError;
}

const SENSITIVE = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export function createTransport(config: RestConfig, opts: TransportOptions): Transport {
  const { logger, clock } = opts;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const random = opts.random ?? Math.random;
  const server = config.server.replace(/\/+$/, '');
  const serverUrl = new URL(server);
  const isHttps = serverUrl.protocol === 'https:';
  const proxy: ProxyChoice | undefined = selectProxy(server, config.proxyUrl, opts.env);
  if (proxy) logger.info(6, `Using proxy ${proxyDisplay(proxy.url)} (${proxy.source}) for ${serverUrl.host}`, 'transport.go:1');

  let route: Route | undefined;
  let routeCert: ClientCertificate | undefined;
  const routeFor = (cert: ClientCertificate | undefined): Route => {
    if (!route || cert !== routeCert) {
      route?.agent.destroy();
      route = createRoute(server, config.tls, proxy, cert);
      routeCert = cert;
    }
    return route;
  };

  const buildHeaders = async (o: RequestOptions): Promise<OutgoingHttpHeaders> => {
    const h: OutgoingHttpHeaders = { Accept: 'application/json, */*', ...o.headers, 'User-Agent': USER_AGENT };
    const auth = await config.credentials.getAuthorization();
    if (auth) h.Authorization = auth;
    const imp = config.impersonate;
    if (imp) {
      if (imp.user) h['Impersonate-User'] = imp.user;
      if (imp.uid) h['Impersonate-Uid'] = imp.uid;
      if (imp.groups?.length) h['Impersonate-Group'] = imp.groups;
      for (const [k, v] of Object.entries(imp.extra ?? {})) h[`Impersonate-Extra-${encodeURIComponent(k)}`] = v;
    }
    if (o.body !== undefined) h['Content-Length'] = Buffer.byteLength(o.body);
    return h;
  };

  const urlFor = (o: RequestOptions): string => {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.append(k, String(v));
    const q = qs.toString();
    return `${server}${o.path.startsWith('/') ? '' : '/'}${o.path}${q ? `?${q}` : ''}`;
  };

  /** Sends one request and resolves when the response headers arrive. */
  const send = async (o: RequestOptions, method: string, url: string): Promise<Sent> => {
    const headers = await buildHeaders(o);
    const cert = config.credentials.getClientCertificate ? await config.credentials.getClientCertificate() : undefined;
    const r = routeFor(cert);
    const target = new URL(url);
    if (logger.enabled(7)) logHeaders(logger, 'Request Headers:', headers);
    const timeoutMs = o.timeoutMs ?? opts.timeoutMs;
    const timer = new AbortController();
    const started = clock.now();
    return new Promise<Sent>((resolve, reject) => {
      const common = { method, headers, agent: r.agent, signal: o.signal };
      const req = r.proxy
        ? (r.proxy.protocol === 'https:' ? httpsRequest : httpRequest)({
            ...common,
            host: r.proxy.hostname.replace(/^\[|\]$/g, ''),
            port: Number(r.proxy.port || (r.proxy.protocol === 'https:' ? 443 : 80)),
            path: url,
            headers: { ...headers, Host: target.host, ...proxyAuthHeader(r.proxy) },
          })
        : (isHttps ? httpsRequest : httpRequest)(target, common);
      let settled: Sent | undefined;
      const done = () => timer.abort();
      if (timeoutMs > 0) {
        clock.sleep(timeoutMs, timer.signal).then(
          () => {
            const err = new RequestTimeoutError(timeoutMs);
            if (settled) settled.timedOut = err;
            req.destroy(err);
          },
          () => undefined,
        );
      }
      req.on('response', (res) => {
        settled = { res, req, url, started, done };
        resolve(settled);
      });
      req.on('error', (e) => {
        if (settled) return; // reported through the response stream
        done();
        if (logger.enabled(6)) logger.info(6, `${method} ${url}  in ${clock.now() - started} milliseconds`, 'round_trippers.go:560');
        reject(e);
      });
      req.end(o.body);
    });
  };

  const logResponse = (method: string, s: Sent): void => {
    if (!logger.enabled(6)) return;
    const code = s.res.statusCode ?? 0;
    logger.info(6, `${method} ${s.url} ${code} ${STATUS_CODES[code] ?? ''} in ${clock.now() - s.started} milliseconds`, 'round_trippers.go:560');
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
      const status = sent.res.statusCode ?? 0;
      if (status === 401 && !refreshed && (await config.credentials.refreshAfterUnauthorized())) {
        refreshed = true;
        discard(sent);
        attempt--;
        continue;
      }
      if (idempotent && (status === 429 || status === 503) && attempt < policy.maxRetries) {
        const delay = retryDelay(attempt, header(sent.res.headers['retry-after']), policy, random);
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
        const body = await readBody(sent.res);
        sent.done();
        return { status: sent.res.statusCode ?? 0, headers: sent.res.headers, body, url: sent.url };
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
        sent.req.destroy();
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
      return { status: sent.res.statusCode ?? 0, headers: sent.res.headers, body: body(), url: sent.url, close };
    },
    close() {
      route?.agent.destroy();
      route = undefined;
    },
  };
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => (res.complete ? resolve(Buffer.concat(chunks)) : reject(truncated())));
    res.on('error', (e: NodeJS.ErrnoException) => reject(e.message === 'aborted' ? truncated() : e));
  });
}

function truncated(): Error {
  return Object.assign(new Error('unexpected EOF'), { code: 'ERR_TRUNCATED_RESPONSE' });
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
function logHeaders(logger: Logger, title: string, headers: OutgoingHttpHeaders | IncomingMessage['headers']): void {
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
