/**
 * The Transport: one keep-alive pool per cluster (./pool.ts) speaking HTTP/1.1 (./wire.ts) over the
 * connections ./dial.ts opens with the kubeconfig's TLS settings and proxies. createTransport checks
 * the configuration and composes the concerns, each in its own module: one round trip with
 * credentials and `--request-timeout` (./round-trip.ts), bounded retries (./retry.ts), the 401
 * credential refresh (./credential-refresh.ts), and kubectl-style `-v=6..8` request logging with
 * credentials redacted (./request-log.ts).
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { ClientCertificate, CredentialProvider, RestConfig } from '../kubeconfig/types.js';
import { noCredentials } from '../kubeconfig/credentials.js';
import { createDialer, type Dialer, type DialTimeouts } from './dial.js';
import { caBundleProblem } from './go-pem.js';
import { ConfigError } from '../core/errors.js';
import { ConnectionPool } from './pool.js';
import { truncated } from './wire.js';
import { toConnectionError } from './errors.js';
import { proxyDisplay, selectProxy, type ProxyChoice } from './proxy.js';
import { DEFAULT_RETRY, readWithRetries, sendWithRetries, type RetriedRequest, type Retrying, type RetryPolicy } from './retry.js';
import { withCredentialRefresh } from './credential-refresh.js';
import { createRequestLog } from './request-log.js';
import { createRoundTripper, readBody, type Sent } from './round-trip.js';
import type { RequestOptions, StreamResponse, Transport } from './types.js';

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
}

/** RequestOptions plus a flag to allow retries for a non-GET request that is safe to repeat. */
export type TransportRequest = RequestOptions & { idempotent?: boolean };

export function createTransport(config: RestConfig, opts: TransportOptions): Transport {
  const { logger, clock } = opts;
  const server = config.server.replace(/\/+$/, '');
  const serverUrl = new URL(server);
  checkCaBundle(config);
  const proxy: ProxyChoice | undefined = selectProxy(server, config.proxyUrl, opts.env);
  if (proxy) logger.info(6, `Using proxy ${proxyDisplay(proxy.url)} (${proxy.source}) for ${serverUrl.host}`, 'transport.go:1');
  const credentials = credentialsFor(config, serverUrl, logger);
  const pools = poolPerCertificate((cert) => createDialer(server, config.tls, { proxy, cert, timeouts: opts.timeouts, log: (m) => logger.info(6, m, 'transport.go:1') }));

  const log = createRequestLog(logger, clock);
  const roundTrip = createRoundTripper({
    server,
    credentials,
    impersonate: config.impersonate,
    pool: pools.for,
    clock,
    log,
    timeoutMs: opts.timeoutMs,
    timeoutSetting: opts.timeoutSetting,
  });
  const retrying: Retrying = { policy: { ...DEFAULT_RETRY, ...opts.retry }, random: opts.random ?? Math.random, clock, logger, host: serverUrl.host };
  const retried = (o: TransportRequest): RetriedRequest => {
    const method = o.method ?? 'GET';
    return { method, url: roundTrip.url(o), idempotent: method === 'GET' || o.idempotent === true, signal: o.signal, retryAfterMaxMs: o.retryAfterMaxMs, onRetry: o.onRetry };
  };

  /** One request to its response head: sent (and logged), retried, and sent again after a 401 refresh. */
  const exchange = (o: TransportRequest, req: RetriedRequest = retried(o)): Promise<Sent> => {
    const send = async (): Promise<Sent> => {
      const sent = await roundTrip.send(o, req.method, req.url);
      log.response(req.method, sent.url, sent.res.statusCode, sent.res.headers, sent.started);
      return sent;
    };
    return withCredentialRefresh(credentials, (from) => sendWithRetries(send, req, retrying, from));
  };

  return {
    server,
    request: async (o: TransportRequest) => {
      const req = retried(o);
      const read = async (sent: Sent) => ({ status: sent.res.statusCode, headers: sent.res.headers, body: await readBody(sent.res, o.maxBodyBytes, o.path), url: sent.url });
      return readWithRetries(() => exchange(o, req), read, req, retrying);
    },
    stream: async (o: TransportRequest) => streamed(await exchange(o), o, serverUrl.host),
    preconnect() {
      // Only when the credentials need no work first (a client certificate from an exec plugin does).
      if (!credentials.getClientCertificate) pools.for(undefined).preconnect();
    },
    close: () => pools.close(),
  };
}

/** A kubeconfig CA bundle Go would refuse (no certificate in it) fails here, before any request, in kubectl's words. */
function checkCaBundle(config: RestConfig): void {
  if (!config.tls.caData || config.tls.insecure) return;
  const problem = caBundleProblem(config.tls.caData);
  if (problem) throw new ConfigError(`unable to load root certificates: ${problem} (${config.tls.caSource ?? 'certificate-authority'})`);
}

/**
 * As clientcmd: user credentials apply only to TLS transports. Over plain http nothing is asked of
 * the provider: no token read, no exec plugin run, no client certificate (a -v=6 note says so).
 * (Impersonation headers are not credentials; kubectl sends them over http too.)
 */
function credentialsFor(config: RestConfig, serverUrl: URL, logger: Logger): CredentialProvider {
  if (serverUrl.protocol === 'https:') return config.credentials;
  if (config.credentials.kind !== 'none' || config.tls.certData) {
    logger.info(6, `Not sending credentials to ${serverUrl.protocol}//${serverUrl.host}: user credentials (${credentialKinds(config).join(', ')}) are used only over https`, 'client_config.go:1');
  }
  return noCredentials;
}

/** One connection pool at a time, for the client certificate in use: a new certificate (an exec plugin's renewal) closes the old pool. */
function poolPerCertificate(dialer: (cert: ClientCertificate | undefined) => Dialer): { for(cert: ClientCertificate | undefined): ConnectionPool; close(): void } {
  let pool: ConnectionPool | undefined;
  let poolCert: ClientCertificate | undefined;
  return {
    for(cert) {
      if (!pool || cert !== poolCert) {
        pool?.close();
        pool = new ConnectionPool(dialer(cert));
        poolCert = cert;
      }
      return pool;
    },
    close() {
      pool?.close();
      pool = undefined;
    },
  };
}

/** A streamed response: its body as chunks, failing as a ConnectionError (or the abort's reason), the connection released at its end or on close(). */
function streamed(sent: Sent, o: TransportRequest, host: string): StreamResponse {
  const method = o.method ?? 'GET';
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
      throw toConnectionError(sent.timedOut ?? e, host, `${method} ${sent.url}`);
    } finally {
      close();
    }
  }
  return { status: sent.res.statusCode, headers: sent.res.headers, body: body(), url: sent.url, close };
}

/** What a config would send as credentials, for the -v=6 note (kinds only, never values). */
function credentialKinds(config: RestConfig): string[] {
  const kinds: string[] = [];
  if (config.credentials.kind !== 'none') kinds.push(config.credentials.kind);
  if (config.tls.certData) kinds.push('client certificate');
  return kinds;
}
