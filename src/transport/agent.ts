/**
 * One keep-alive connection pool per cluster: an http(s).Agent carrying the cluster's TLS settings,
 * tunnelling through a proxy with CONNECT when one applies to an https server. For an http server
 * behind a proxy, requests go to the proxy with absolute URIs (`proxyRoute`).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { ClientCertificate, TLSConfig } from '../kubeconfig/types.js';
import { connectTunnel, type ProxyChoice } from './proxy.js';

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

export function createRoute(server: string, tls: TLSConfig, proxy: ProxyChoice | undefined, cert?: ClientCertificate): Route {
  const https = server.startsWith('https:');
  if (!proxy) {
    return { agent: https ? new HttpsAgent({ ...POOL, ...tlsOptions(tls, cert) }) : new HttpAgent(POOL) };
  }
  if (https) return { agent: new TunnelAgent(proxy.url, { ...POOL, ...tlsOptions(tls, cert) }) };
  // Plain http server through a proxy: talk to the proxy (over TLS for an https proxy).
  const agent = proxy.url.protocol === 'https:' ? new HttpsAgent({ ...POOL }) : new HttpAgent(POOL);
  return { agent, proxy: proxy.url };
}
