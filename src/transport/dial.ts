/**
 * How kdyn reaches a cluster: one `Dialer` per server and client certificate, which opens a ready
 * connection (TCP, TLS, or TLS inside a proxy's CONNECT tunnel) for ./pool.ts to send HTTP/1.1 on.
 *
 * Verification of an https server (see docs/security.md): kdyn connects only when two independent
 * verdicts accept, and Node's own `rejectUnauthorized`/`checkServerIdentity` are not used.
 * - OpenSSL's: the trust anchors are the certificates of the kubeconfig's CA bundle that Go accepts
 *   (./go-pem.ts; every one of them an anchor, as in Go: partial chains), or Node's default roots when
 *   the kubeconfig has no CA (`system`); its verdict is read from the socket.
 * - Go's (./x509-verify.ts): crypto/x509's parser, path building and allowlists on the certificates
 *   the server sent, against the same anchors.
 * - `none`: `insecure-skip-tls-verify`.
 * No input changes which checks run: a CA bundle block that cannot be parsed is skipped as Go skips
 * it, and both verdicts apply in every verifying mode. The ClientHello offers Go's signature schemes
 * only, so a server whose key Go's TLS stack cannot use fails the handshake as it does for kubectl.
 * Nothing is written on a connection before its server passed: a failed check destroys the socket
 * before one request byte. With a client certificate, the client's handshake flight that carries it
 * is held back (./gate.ts) until the server passed.
 *
 * client-go's transport defaults bound every phase: TCP connect 30 s ("dial tcp ...: i/o timeout"),
 * TLS handshake 10 s ("net/http: TLS handshake timeout"), a proxy's answer to CONNECT 1 min.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type DetailedPeerCertificate, type PeerCertificate, type SecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';
import type { ClientCertificate, TLSConfig } from '../kubeconfig/types.js';
import { checkKeyPair } from './client-key.js';
import { ClientFlightGate } from './gate.js';
import { connectTunnel, type ProxyChoice } from './proxy.js';
import { hostPort, selfConnectRefusal, setGoSocketOptions } from './tcp-socket.js';
import { readCaBundle, type CaBundle } from './go-pem.js';
import { serverVerdict } from './server-verdict.js';

/** `openssl`: the kubeconfig's CA bundle; `node`: Node's default roots (no CA in the kubeconfig); `none`: insecure. */
export type Verification = 'openssl' | 'node' | 'none';

/**
 * The signature schemes Go's TLS client offers (crypto/tls defaultSupportedSignatureAlgorithms,
 * go1.23), in its order: a server key Go cannot use (RSA-PSS keys, Ed448) fails the handshake.
 */
export const GO_SIGNATURE_SCHEMES = [
  'rsa_pss_rsae_sha256', 'ecdsa_secp256r1_sha256', 'ed25519', 'rsa_pss_rsae_sha384', 'rsa_pss_rsae_sha512',
  'rsa_pkcs1_sha256', 'rsa_pkcs1_sha384', 'rsa_pkcs1_sha512', 'ecdsa_secp384r1_sha384', 'ecdsa_secp521r1_sha512',
  'rsa_pkcs1_sha1', 'ECDSA+SHA1',
].join(':');

export interface Dialer {
  /** Opens one connection, resolved once it can carry a request (TLS verified). */
  dial(): Promise<Socket>;
  /** How the server is verified now, for tests and -v logs. */
  readonly verification: Verification;
  /** Set when requests must be addressed to an http proxy in absolute-URI form. */
  readonly absoluteTarget?: URL;
}

export interface DialTimeouts {
  /** TCP connect (Go's net.Dialer Timeout in client-go: 30 s). */
  dialMs: number;
  /** TLS handshake, from TCP connect to a verified server (http.Transport TLSHandshakeTimeout: 10 s). */
  tlsHandshakeMs: number;
  /** A proxy's answer to CONNECT (net/http's bound when nothing else limits it: 1 min). */
  proxyConnectMs: number;
}

export const DEFAULT_TIMEOUTS: DialTimeouts = { dialMs: 30_000, tlsHandshakeMs: 10_000, proxyConnectMs: 60_000 };

export interface DialOptions {
  proxy?: ProxyChoice;
  /** A client certificate from an exec plugin (else the kubeconfig's, from `tls`). */
  cert?: ClientCertificate;
  /** Wall time for certificate validity (as OpenSSL uses; not the injected Clock). */
  now?: () => number;
  timeouts?: Partial<DialTimeouts>;
  /** -v logging of verification decisions (never given secrets). */
  log?: (message: string) => void;
  /** Opens a TCP connection, to the server or a proxy (tests stand in a socket that never connects, or one that records its options). */
  connect?: (host: string, port: number) => Socket;
}

function clientCert(tls: TLSConfig): ClientCertificate | undefined {
  return tls.certData && tls.keyData ? { cert: tls.certData, key: tls.keyData } : undefined;
}

export function createDialer(server: string, tls: TLSConfig, o: DialOptions = {}): Dialer {
  const url = new URL(server);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  const timeouts: DialTimeouts = { ...DEFAULT_TIMEOUTS, ...o.timeouts };
  const proxy = o.proxy;
  const open = o.connect ?? ((h: string, p: number) => netConnect({ host: h, port: p }));
  if (!https) return plainDialer(host, port, proxy, timeouts, open);

  const servername = sni(tls.serverName || host);
  const bundle = !tls.insecure && tls.caData ? readCaBundle(tls.caData) : undefined;
  const cert = o.cert ?? clientCert(tls);
  const mode: Verification = tls.insecure ? 'none' : bundle ? 'openssl' : 'node';
  const raw = (): Promise<Socket> =>
    proxy ? connectTunnel(proxy.url, host, port, { rejectUnauthorized: true }, timeouts, open) : tcpConnect(open(host, port), host, port, timeouts.dialMs);
  // Go's tlsHost: the URL's host with an IPv6 literal still in brackets (VerifyHostname strips them).
  const judge = mode === 'none' ? () => undefined : serverVerdict({ bundle, serverName: tls.serverName || url.hostname, where: url.host, now: o.now ?? Date.now, log: o.log });
  const secureContext = secureContextOnce(cert, mode === 'openssl' ? bundle : undefined);

  return {
    verification: mode,
    dial: async () => {
      const secure = secureContext();
      const socket = await raw();
      const gate = cert && mode !== 'none' ? new ClientFlightGate(socket) : undefined;
      // kdyn judges every verifying mode itself (serverVerdict), so Node never rejects on its own. Node
      // still runs its checkServerIdentity after OpenSSL accepts, only to fill `authorized`, which kdyn
      // never reads: the check is replaced (net.isIPv6's regular expression cost ~4 ms of CPU per run) by
      // one that keeps the chain Node read for it, for serverVerdict (reading it again costs ~1 ms a connection).
      let presented: DetailedPeerCertificate | undefined;
      const keepChain = (_host: string, cert: PeerCertificate): undefined => void (presented = cert as DetailedPeerCertificate);
      const opts: ConnectionOptions = { socket: gate ?? socket, secureContext: secure, rejectUnauthorized: false, checkServerIdentity: keepChain, ...(servername ? { servername } : {}) };
      const s = tlsConnect(opts);
      if (gate) keepRefsInStep(s, socket);
      try {
        return await handshake(s, timeouts.tlsHandshakeMs, {
          gate,
          // TLS 1.2: the held flight is the answer to the server's; judge now (TLS 1.3 waits for secureConnect).
          onHeld: () => (s.getProtocol() === 'TLSv1.2' ? judge(s) : 'wait'),
          onSecure: () => judge(s, presented),
        });
      } catch (e) {
        s.destroy();
        throw NOT_TLS.has((e as NodeJS.ErrnoException).code ?? '') ? await notTlsError(raw, servername) : e;
      }
    },
  };
}

/** A plain http server: a TCP connection to it, or to the proxy (over TLS for an https proxy). */
function plainDialer(host: string, port: number, proxy: ProxyChoice | undefined, timeouts: DialTimeouts, open: (host: string, port: number) => Socket): Dialer {
  if (!proxy) return { verification: 'none', dial: () => tcpConnect(open(host, port), host, port, timeouts.dialMs) };
  const p = proxy.url;
  const pHost = p.hostname.replace(/^\[|\]$/g, '');
  const pPort = Number(p.port || (p.protocol === 'https:' ? 443 : 80));
  return {
    verification: 'none',
    absoluteTarget: p,
    dial: async () => {
      const s = await tcpConnect(open(pHost, pPort), pHost, pPort, timeouts.dialMs);
      if (p.protocol !== 'https:') return s;
      return (await handshake(tlsConnect({ socket: s, host: pHost, servername: sni(pHost), rejectUnauthorized: true }), timeouts.tlsHandshakeMs)) as TLSSocket;
    },
  };
}

/**
 * One SecureContext for every connection of a dialer, made on the first: the client key and
 * certificate are parsed once, and OpenSSL refuses a key that does not match the certificate. Only
 * when it refuses are they examined again, for Go's words (./client-key.ts). With `anchors` (the
 * `openssl` mode), any certificate of the bundle is a trust anchor, as in Go (OpenSSL's partial chains),
 * given through Node's own options (`ca`, `allowPartialTrustChain`). Without, Node's default roots.
 */
function secureContextOnce(cert: ClientCertificate | undefined, anchors: CaBundle | undefined): () => SecureContext {
  let context: SecureContext | undefined;
  return () => {
    if (context) return context;
    const options: SecureContextOptions = { sigalgs: GO_SIGNATURE_SCHEMES };
    if (cert) Object.assign(options, { cert: cert.cert, key: cert.key });
    if (anchors) Object.assign(options, { ca: anchors.pem, allowPartialTrustChain: true });
    try {
      context = createSecureContext(options);
    } catch (e) {
      if (cert) checkKeyPair(cert);
      throw e;
    }
    return context;
  };
}

type Judged = Error | undefined;

/**
 * Waits for a TLS socket's handshake (bounded by `ms`), runs the verdicts, opens the gate on
 * success; on failure or timeout destroys the socket unopened.
 */
function handshake(s: TLSSocket, ms: number, h: { gate?: ClientFlightGate; onHeld?: () => Judged | 'wait'; onSecure?: () => Judged } = {}): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (r: Judged): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.removeListener('error', onError);
      if (r === undefined) {
        h.gate?.open();
        resolve(s);
        return;
      }
      s.destroy();
      reject(r);
    };
    const onError = (e: Error) => finish(e);
    const timer = setTimeout(() => finish(Object.assign(new Error('net/http: TLS handshake timeout'), { code: 'ERR_KDYN_TLS_HANDSHAKE_TIMEOUT' })), ms);
    s.once('error', onError);
    s.once('secureConnect', () => finish(h.onSecure ? h.onSecure() : undefined));
    h.gate?.once('held', () => {
      if (done || !h.onHeld) return;
      const r = h.onHeld();
      if (r === 'wait') return;
      if (r === undefined) h.gate!.open(); // verified; the handshake completes, then secureConnect judges again
      else finish(r);
    });
  });
}

/**
 * A TLS socket over a JS stream (the gate) has no handle of its own to ref or unref: the pool's
 * `unref()` of an idle connection must reach the TCP socket, or it keeps the process alive.
 */
function keepRefsInStep(s: TLSSocket, tcp: Socket): void {
  const ref = s.ref.bind(s);
  const unref = s.unref.bind(s);
  s.ref = () => {
    tcp.ref();
    return ref();
  };
  s.unref = () => {
    tcp.unref();
    return unref();
  };
}

/**
 * Waits for a TCP connection, failing with Go's `i/o timeout` after `ms`, with Go's socket options
 * and its refusal of a connection to itself (./tcp-socket.ts).
 */
function tcpConnect(s: Socket, host: string, port: number, ms: number): Promise<Socket> {
  setGoSocketOptions(s);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      s.destroy();
      reject(Object.assign(new Error(`dial tcp ${hostPort(host, port)}: i/o timeout`), { code: 'ETIMEDOUT' }));
    }, ms);
    s.once('error', (e) => {
      clearTimeout(timer);
      s.destroy();
      reject(e);
    });
    s.once('connect', () => {
      clearTimeout(timer);
      s.removeAllListeners('error');
      const refusal = selfConnectRefusal(s, host, port);
      if (refusal) reject(refusal);
      else resolve(s);
    });
  });
}

/** OpenSSL's errors for a first record that is not TLS. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/**
 * The server answered the ClientHello with something other than TLS. OpenSSL does not say what, and
 * Go's words depend on it (net/http: `server gave HTTP response to HTTPS client` when the answer
 * starts with `HTTP/`, else crypto/tls: `first record does not look like a TLS handshake`): send a
 * ClientHello again (nothing else: no credentials, no client certificate) and look at the answer.
 */
async function notTlsError(raw: () => Promise<Socket>, servername: string | undefined): Promise<Error> {
  const looksLikeHttp = await new Promise<boolean>((resolve) => {
    raw().then((socket) => {
      const timer = setTimeout(() => done(false), 2_000);
      const done = (http: boolean) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(http);
      };
      socket.once('data', (b: Buffer) => done(b.subarray(0, 5).toString('latin1') === 'HTTP/'));
      const probe = tlsConnect({ socket: new ClientFlightGate(socket), ...(servername ? { servername } : {}), rejectUnauthorized: false });
      probe.on('error', () => undefined);
      socket.once('close', () => done(false));
    }, () => resolve(false));
  });
  const message = looksLikeHttp ? 'http: server gave HTTP response to HTTPS client' : 'tls: first record does not look like a TLS handshake';
  return Object.assign(new Error(message), { code: 'ERR_KDYN_NOT_TLS' });
}

/** SNI is a host name, never an IP address (as Go and Node's https agent do). */
function sni(host: string): string | undefined {
  return isIP(host) ? undefined : host;
}
