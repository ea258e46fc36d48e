/**
 * One keep-alive connection pool per cluster: an http(s).Agent carrying the cluster's TLS settings,
 * tunnelling through a proxy with CONNECT when one applies to an https server. For an http server
 * behind a proxy, requests go to the proxy with absolute URIs (`proxyRoute`).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ClientCertificate, TLSConfig } from '../kubeconfig/types.js';
import { connectTunnel, type ProxyChoice } from './proxy.js';
import { parseCaBundle, presentedIntermediates, verifyServerChain } from './tls-verify.js';

export interface Route {
  agent: HttpAgent;
  /** Set when requests must be addressed to an http proxy (absolute-URI form). */
  proxy?: URL;
}

const POOL = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 32, maxFreeSockets: 8, scheduling: 'lifo' as const };

export function tlsOptions(tls: TLSConfig, cert?: ClientCertificate): HttpsAgentOptions {
  const o: HttpsAgentOptions = { rejectUnauthorized: !tls.insecure };
  if (tls.caData) o.ca = tls.caData;
  const c = cert ?? (tls.certData && tls.keyData ? { cert: tls.certData, key: tls.keyData } : undefined);
  if (c) {
    o.cert = c.cert;
    o.key = c.key;
  }
  if (tls.serverName) o.servername = tls.serverName;
  return o;
}

/** An https.Agent whose sockets are TLS sessions inside a CONNECT tunnel. */
class TunnelAgent extends HttpsAgent {
  constructor(
    private readonly proxy: URL,
    options: HttpsAgentOptions,
  ) {
    super(options);
  }
  // Node calls createConnection(options, callback) and accepts the socket through the callback.
  override createConnection(options: RequestOptions, cb?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? 'localhost').replace(/^\[|\]$/g, '');
    const port = Number(options.port ?? 443);
    connectTunnel(this.proxy, host, port, { rejectUnauthorized: true }).then(
      (raw) => {
        const s = tlsConnect({ ...(options as ConnectionOptions), socket: raw });
        cb?.(null, s);
      },
      (e: Error) => cb?.(e, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/**
 * An https.Agent that trusts only the kubeconfig's CAs and checks them in JS (./tls-verify.ts):
 * the TLS session is set up with no CA at all (so Node never builds its ~140-certificate root
 * store, ~20-28 ms), and the socket reaches the HTTP request only after the peer chain verified.
 * A failed check destroys the socket before any request byte (or Authorization header) is written.
 */
export class VerifyingAgent extends HttpsAgent {
  constructor(
    options: HttpsAgentOptions,
    private readonly anchors: readonly X509Certificate[],
    private readonly now: () => number,
  ) {
    super(options);
  }

  // Node calls createConnection(options, callback) and accepts the socket through the callback:
  // the request is bound to the socket (and writes to it) only once the chain verified.
  override createConnection(options: RequestOptions, cb?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const o = options as ConnectionOptions;
    const serverName = o.servername || String(o.host ?? 'localhost');
    const s: TLSSocket = tlsConnect({ ...o, ca: [], rejectUnauthorized: false });
    const onError = (e: Error) => {
      s.removeListener('secureConnect', onSecure);
      cb?.(e, undefined as unknown as Duplex);
    };
    const onSecure = () => {
      s.removeListener('error', onError);
      let err: Error | undefined;
      try {
        // The leaf alone first; the presented chain only if an intermediate is needed. (Not
        // getPeerX509Certificate(): on Node 20, after it getPeerCertificate(true) loses the chain.)
        const raw = s.getPeerCertificate(false)?.raw;
        if (!raw) err = Object.assign(new Error('the server presented no certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
        else err = verifyServerChain(new X509Certificate(raw), () => presentedIntermediates(s.getPeerCertificate(true)), this.anchors, serverName, this.now());
      } catch (e) {
        err = Object.assign(new Error(`certificate verification failed: ${(e as Error).message}`), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      }
      if (err) {
        s.destroy();
        cb?.(err, undefined as unknown as Duplex);
      } else cb?.(null, s);
    };
    s.once('error', onError);
    s.once('secureConnect', onSecure);
    return undefined;
  }
}

/** The JS-verified route applies to a direct https connection whose kubeconfig brings a parsable CA. */
function verifyingAgent(tls: TLSConfig, cert: ClientCertificate | undefined, now: () => number): HttpsAgent | undefined {
  if (tls.insecure || !tls.caData) return undefined;
  const anchors = parseCaBundle(tls.caData);
  if (!anchors) return undefined;
  const { ca: _ca, ...rest } = tlsOptions(tls, cert);
  return new VerifyingAgent({ ...POOL, ...rest }, anchors, now);
}

/**
 * @param now  wall time for certificate validity (as OpenSSL uses; not the injected Clock, whose
 *             fake time in tests has nothing to do with a certificate's dates)
 */
export function createRoute(server: string, tls: TLSConfig, proxy: ProxyChoice | undefined, cert?: ClientCertificate, now: () => number = Date.now): Route {
  const https = server.startsWith('https:');
  if (!proxy) {
    if (!https) return { agent: new HttpAgent(POOL) };
    return { agent: verifyingAgent(tls, cert, now) ?? new HttpsAgent({ ...POOL, ...tlsOptions(tls, cert) }) };
  }
  if (https) return { agent: new TunnelAgent(proxy.url, { ...POOL, ...tlsOptions(tls, cert) }) };
  // Plain http server through a proxy: talk to the proxy (over TLS for an https proxy).
  const agent = proxy.url.protocol === 'https:' ? new HttpsAgent({ ...POOL }) : new HttpAgent(POOL);
  return { agent, proxy: proxy.url };
}
