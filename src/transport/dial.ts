/**
 * How kdyn reaches a cluster: one `Dialer` per server and client certificate, which opens a ready
 * connection (TCP, TLS, or TLS inside a proxy's CONNECT tunnel) for ./pool.ts to send HTTP/1.1 on.
 *
 * - https with a kubeconfig CA: the TLS session is set up with no CA at all (so Node never builds
 *   its ~140-certificate root store, 20-28 ms) and the chain is verified in JS (./tls-verify.ts)
 *   before the socket is handed out: a failed check destroys it before one request byte (or the
 *   Authorization header) is written.
 * - https without a CA, with an unparsable CA, or `insecure-skip-tls-verify`: Node's own verification.
 * - A proxy for an https server: CONNECT tunnel (./proxy.ts), TLS to the cluster inside it.
 * - A proxy for an http server: requests go to the proxy with absolute URIs (`absoluteTarget`).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ClientCertificate, TLSConfig } from '../kubeconfig/types.js';
import { connectTunnel, type ProxyChoice } from './proxy.js';
import { parseCaBundle, presentedIntermediates, verifyServerChain } from './tls-verify.js';

export interface Dialer {
  /** Opens one connection, resolved once it can carry a request (TLS verified). */
  dial(): Promise<Socket>;
  /** How the server is verified, for tests and -v logs. */
  readonly verification: 'js' | 'node' | 'none';
  /** Set when requests must be addressed to an http proxy in absolute-URI form. */
  readonly absoluteTarget?: URL;
}

export function tlsOptions(tls: TLSConfig, cert?: ClientCertificate): ConnectionOptions {
  const o: ConnectionOptions = { rejectUnauthorized: !tls.insecure };
  if (tls.caData) o.ca = tls.caData;
  const c = cert ?? (tls.certData && tls.keyData ? { cert: tls.certData, key: tls.keyData } : undefined);
  if (c) {
    o.cert = c.cert;
    o.key = c.key;
  }
  return o;
}

/**
 * @param now  wall time for certificate validity (as OpenSSL uses; not the injected Clock, whose
 *             fake time in tests has nothing to do with a certificate's dates)
 */
export function createDialer(server: string, tls: TLSConfig, proxy: ProxyChoice | undefined, cert?: ClientCertificate, now: () => number = Date.now): Dialer {
  const url = new URL(server);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));

  if (!https) {
    if (!proxy) return { verification: 'none', dial: () => connected(netConnect({ host, port }), 'connect') };
    // Plain http server through a proxy: talk to the proxy (over TLS for an https proxy).
    const p = proxy.url;
    const pHost = p.hostname.replace(/^\[|\]$/g, '');
    const pPort = Number(p.port || (p.protocol === 'https:' ? 443 : 80));
    return {
      verification: 'none',
      absoluteTarget: p,
      dial: () =>
        p.protocol === 'https:'
          ? connected(tlsConnect({ host: pHost, port: pPort, servername: sni(pHost) }), 'secureConnect')
          : connected(netConnect({ host: pHost, port: pPort }), 'connect'),
    };
  }

  const servername = tls.serverName || sni(host);
  const anchors = !tls.insecure && tls.caData ? parseCaBundle(tls.caData) : undefined;
  const base: ConnectionOptions = { ...tlsOptions(tls, cert), ...(servername ? { servername } : {}) };
  // A socket from a CONNECT tunnel, or undefined for a direct connection.
  const raw = (): Promise<Socket | undefined> => (proxy ? connectTunnel(proxy.url, host, port, { rejectUnauthorized: true }) : Promise.resolve(undefined));

  if (anchors) {
    const { ca: _ca, ...rest } = base;
    const verifyName = tls.serverName || host;
    return {
      verification: 'js',
      dial: async () => {
        const socket = await raw();
        const s = tlsConnect({ ...rest, host, port, ...(socket ? { socket } : {}), ca: [], rejectUnauthorized: false });
        await connected(s, 'secureConnect');
        const err = verifyPeer(s, anchors, verifyName, now());
        if (err) {
          s.destroy();
          throw err;
        }
        return s;
      },
    };
  }
  return {
    verification: tls.insecure ? 'none' : 'node',
    dial: async () => {
      const socket = await raw();
      return connected(tlsConnect({ ...base, host, port, ...(socket ? { socket } : {}) }), 'secureConnect');
    },
  };
}

/** The JS check of the presented chain against the kubeconfig's CAs; undefined when it holds. */
function verifyPeer(s: TLSSocket, anchors: readonly X509Certificate[], serverName: string, now: number): Error | undefined {
  try {
    // The leaf alone first; the presented chain only if an intermediate is needed. (Not
    // getPeerX509Certificate(): on Node 20, after it getPeerCertificate(true) loses the chain.)
    const raw = s.getPeerCertificate(false)?.raw;
    if (!raw) return Object.assign(new Error('the server presented no certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    return verifyServerChain(new X509Certificate(raw), () => presentedIntermediates(s.getPeerCertificate(true)), anchors, serverName, now);
  } catch (e) {
    return Object.assign(new Error(`certificate verification failed: ${(e as Error).message}`), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  }
}

/** SNI is a host name, never an IP address (as Go and Node's https agent do). */
function sni(host: string): string | undefined {
  return isIP(host) ? undefined : host;
}

function connected<S extends Socket>(s: S, event: 'connect' | 'secureConnect'): Promise<S> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => {
      s.removeListener(event, onReady);
      s.destroy();
      reject(e);
    };
    const onReady = () => {
      s.removeListener('error', onError);
      resolve(s);
    };
    s.once('error', onError);
    s.once(event, onReady);
  });
}
