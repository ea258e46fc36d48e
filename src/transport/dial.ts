/**
 * How kdyn reaches a cluster: one `Dialer` per server and client certificate, which opens a ready
 * connection (TCP, TLS, or TLS inside a proxy's CONNECT tunnel) for ./pool.ts to send HTTP/1.1 on.
 *
 * Verification of an https server, by mode (see docs/security.md):
 * - `js` (the kubeconfig has a CA that parses): the TLS session is set up with no CA at all (so Node
 *   never builds its ~140-certificate root store: ~31 ms CPU on Node 20, ~5 ms on 22 and 24, docs/security.md) and ./tls-verify.ts `fastVerify` judges
 *   the chain before the socket is handed out. A chain it cannot fully decide (intermediates, name
 *   constraints, other critical extensions, ...) switches the dialer to `openssl` for good and the
 *   connection is made again.
 * - `openssl`: the kubeconfig's CA as `ca` (every certificate of it a trust anchor); OpenSSL's verdict
 *   is read from the socket, then the Go rules OpenSSL lacks are applied to the chain it verified:
 *   the name by type from the DER, only Go-CAs sign, no SHA-1 (./tls-verify.ts).
 * - `node` (no CA: the system roots): the same with Node's default roots.
 * - `none`: `insecure-skip-tls-verify`.
 * Node's own `rejectUnauthorized`/`checkServerIdentity` are not used: kdyn's checks decide, in every
 * mode, before anything is written.
 * Nothing is written on a connection before its server passed: a failed check destroys the socket
 * before one request byte. With a client certificate, the client's handshake flight that carries it
 * is held back (./gate.ts) until the server passed.
 *
 * client-go's transport defaults bound every phase: TCP connect 30 s ("dial tcp ...: i/o timeout"),
 * TLS handshake 10 s ("net/http: TLS handshake timeout"), a proxy's answer to CONNECT 1 min.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type SecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ClientCertificate, TLSConfig } from '../kubeconfig/types.js';
import { checkKeyPair } from './client-key.js';
import { ClientFlightGate } from './gate.js';
import { connectTunnel, type ProxyChoice } from './proxy.js';
import { hostPort, selfConnectRefusal, setGoSocketOptions } from './tcp-socket.js';
import { checkName, fastVerify, goChainProblem, parseCaBundle, prepareAnchors } from './tls-verify.js';

export type Verification = 'js' | 'openssl' | 'node' | 'none';

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
  /** `openssl`: verify with OpenSSL (plus Go's rules) from the first connection, never the fast path (tests compare the two). */
  verification?: 'openssl';
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
  const now = o.now ?? Date.now;
  const open = o.connect ?? ((h: string, p: number) => netConnect({ host: h, port: p }));
  const tcp = (h: string, p: number, ms: number) => tcpConnect(open(h, p), h, p, ms);

  if (!https) {
    if (!proxy) return { verification: 'none', dial: () => tcp(host, port, timeouts.dialMs) };
    // Plain http server through a proxy: talk to the proxy (over TLS for an https proxy).
    const p = proxy.url;
    const pHost = p.hostname.replace(/^\[|\]$/g, '');
    const pPort = Number(p.port || (p.protocol === 'https:' ? 443 : 80));
    return {
      verification: 'none',
      absoluteTarget: p,
      dial: async () => {
        const s = await tcp(pHost, pPort, timeouts.dialMs);
        if (p.protocol !== 'https:') return s;
        return (await handshake(tlsConnect({ socket: s, servername: sni(pHost), rejectUnauthorized: true }), timeouts.tlsHandshakeMs)) as TLSSocket;
      },
    };
  }

  const servername = sni(tls.serverName || host);
  const verifyName = tls.serverName || host;
  const anchors = !tls.insecure && tls.caData ? parseCaBundle(tls.caData) : undefined;
  const cert = o.cert ?? clientCert(tls);
  let mode: Verification = tls.insecure ? 'none' : anchors && o.verification !== 'openssl' ? 'js' : tls.caData ? 'openssl' : 'node';

  const raw = (): Promise<Socket> =>
    proxy ? connectTunnel(proxy.url, host, port, { rejectUnauthorized: true }, timeouts, open) : tcp(host, port, timeouts.dialMs);

  /** The JS verdict on the connected (or, in TLS 1.2, half-connected) server. */
  const judgeJs = (s: TLSSocket, complete: boolean): Error | 'openssl' | undefined => {
    try {
      // Once the handshake is complete, the peer's certificate as an X509Certificate straight from
      // the session, not the legacy object tree of getPeerCertificate() parsed again (~0.4 ms a
      // connection). Not mid-handshake (TLS 1.2's held flight): there Node 20-24 takes the leaf out
      // of the chain OpenSSL has yet to verify, and the handshake then fails.
      const leaf = complete ? s.getPeerX509Certificate() : peerLeaf(s);
      if (!leaf) return Object.assign(new Error('the server presented no certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      const v = fastVerify(leaf, anchors!, verifyName, now());
      if (v.verdict === 'accept') return undefined;
      if (v.verdict === 'reject') return v.error;
      o.log?.(`TLS: verifying ${url.host} with OpenSSL: ${v.why}`);
      return 'openssl';
    } catch (e) {
      return Object.assign(new Error(`certificate verification failed: ${(e as Error).message}`), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    }
  };

  /**
   * OpenSSL has checked the server's chain (at secureConnect, or in TLS 1.2 when the client's flight
   * is held): Go's name check, then the Go rules OpenSSL lacks on the chain it built, then its verdict.
   */
  const judgeOpenSsl = (s: TLSSocket): Error | undefined => {
    const handle = (s as unknown as { _handle?: { verifyError?: () => Error | null } })._handle;
    if (typeof handle?.verifyError !== 'function') {
      return Object.assign(new Error('cannot read OpenSSL\'s verdict on the server on this Node.js version'), { code: 'ERR_KDYN_TLS_EARLY_VERIFY' });
    }
    const openSslVerdict = handle.verifyError();
    // Where OpenSSL refused, a bundle candidate it skipped is added so that Go's reason can name it.
    const chain = peerChain(s, openSslVerdict ? anchors : undefined);
    if (!chain[0]) return Object.assign(new Error('the server presented no certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    return checkName(chain[0], verifyName) ?? goChainProblem(chain, anchors) ?? openSslVerdict ?? undefined;
  };

  /**
   * One SecureContext per verification mode, made once for every connection of this dialer: the
   * client key and certificate are parsed once, and OpenSSL refuses a key that does not match the
   * certificate. Only when it refuses are they examined again, for Go's words (./client-key.ts).
   */
  const contexts = new Map<Verification, SecureContext>();
  const secureContext = (m: Verification): SecureContext => {
    // Without a client certificate the JS mode's context holds nothing of this cluster (no CA, no
    // key): one for every dialer of the process (a fleet of token clusters makes it once, not per cluster).
    if (m === 'js' && !cert) return (sharedJsContext ??= createSecureContext({ ca: [] }));
    let context = contexts.get(m);
    if (context) return context;
    const options: SecureContextOptions = {};
    if (cert) Object.assign(options, { cert: cert.cert, key: cert.key });
    if (m === 'js') options.ca = [];
    // Any certificate of the bundle is a trust anchor, as in Go (OpenSSL's partial chains).
    if (m === 'openssl') Object.assign(options, { ca: tls.caData, allowPartialTrustChain: true });
    try {
      context = createSecureContext(options);
    } catch (e) {
      if (cert) checkKeyPair(cert);
      throw e;
    }
    contexts.set(m, context);
    return context;
  };

  let anchorsPrepared = false;
  const connectWith = async (m: Verification): Promise<TLSSocket | 'openssl'> => {
    const secure = secureContext(m);
    const socket = await raw();
    const gate = cert && m !== 'none' ? new ClientFlightGate(socket) : undefined;
    // kdyn judges every verifying mode itself (below), so Node never rejects on its own.
    const opts: ConnectionOptions = { socket: gate ?? socket, secureContext: secure, rejectUnauthorized: false, ...(servername ? { servername } : {}) };
    const s = tlsConnect(opts);
    // The ClientHello is out: what the JS verdict needs of the CA bundle is read while the server answers.
    if (m === 'js' && !anchorsPrepared) {
      anchorsPrepared = true;
      prepareAnchors(anchors!);
    }
    if (gate) keepRefsInStep(s, socket);
    const judge = (complete: boolean): Error | 'openssl' | undefined => (m === 'js' ? judgeJs(s, complete) : m === 'none' ? undefined : judgeOpenSsl(s));
    try {
      return await handshake(s, timeouts.tlsHandshakeMs, {
        gate,
        // TLS 1.2: the held flight is the answer to the server's; judge now (TLS 1.3 waits for secureConnect).
        onHeld: () => (s.getProtocol() === 'TLSv1.2' ? judge(false) : 'wait'),
        onSecure: () => judge(true),
      });
    } catch (e) {
      throw NOT_TLS.has((e as NodeJS.ErrnoException).code ?? '') ? await notTlsError(raw, servername) : e;
    }
  };

  return {
    get verification() {
      return mode;
    },
    dial: async () => {
      if (mode === 'js') {
        const s = await connectWith('js');
        if (s !== 'openssl') return s;
        mode = 'openssl';
      }
      const s = await connectWith(mode);
      if (s === 'openssl') throw new Error('internal: OpenSSL verification asked for OpenSSL');
      return s;
    },
  };
}

type Judged = Error | 'openssl' | undefined;

/** The JS verification mode's context when there is no client certificate: the same for every cluster. */
let sharedJsContext: SecureContext | undefined;

/**
 * Waits for a TLS socket's handshake (bounded by `ms`), runs the verdicts, opens the gate on
 * success; on failure or timeout destroys the socket unopened.
 */
function handshake(s: TLSSocket, ms: number, h: { gate?: ClientFlightGate; onHeld?: () => Judged | 'wait'; onSecure?: () => Judged } = {}): Promise<TLSSocket | 'openssl'> {
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
      if (r === 'openssl') resolve('openssl');
      else reject(r);
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

/**
 * The server's chain as OpenSSL built it: the leaf, then each issuer (the trust anchor last). Given
 * `candidates`, a certificate of them that signed the last one is added (OpenSSL skips an issuer
 * whose keyUsage lacks keyCertSign).
 */
function peerChain(s: TLSSocket, candidates: readonly X509Certificate[] | undefined): X509Certificate[] {
  const chain: X509Certificate[] = [];
  for (let c = s.getPeerCertificate(true); c?.raw && !chain.some((x) => x.raw.equals(c.raw)); c = c.issuerCertificate) {
    chain.push(new X509Certificate(c.raw));
  }
  const last = chain[chain.length - 1];
  const candidate = last && last.issuer !== last.subject ? candidates?.find((a) => a.subject === last.issuer && last.verify(a.publicKey)) : undefined;
  if (candidate && !candidate.raw.equals(last!.raw)) chain.push(candidate);
  return chain;
}

/** The server's leaf certificate, read without touching the chain OpenSSL is verifying. */
function peerLeaf(s: TLSSocket): X509Certificate | undefined {
  const raw = s.getPeerCertificate(false)?.raw;
  return raw ? new X509Certificate(raw) : undefined;
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
