/**
 * kdyn's verdict on an https server (docs/security.md; the overview is at the top of ./dial.ts): Go's
 * rules (./x509-verify.ts) on the certificates the server sent, then OpenSSL's verdict read from the
 * socket; both must accept. The trust anchors are the kubeconfig's CA bundle as Go reads it, or
 * Node's default roots when the kubeconfig has none.
 */
import { readFileSync } from 'node:fs';
import * as tlsModule from 'node:tls';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { certificateBlocks, type CaBundle } from './go-pem.js';
import { certPool, lazyCertPool, verifyServer, type CertPool } from './x509-verify.js';

export interface VerdictOptions {
  /** The kubeconfig's CA bundle; undefined: Node's default roots. */
  bundle: CaBundle | undefined;
  /** The name the certificate must hold (Go's tlsHost: an IPv6 literal still in brackets). */
  serverName: string;
  /** The server's `host:port`, for the log. */
  where: string;
  /** Wall time for certificate validity (as OpenSSL uses). */
  now: () => number;
  log?: ((message: string) => void) | undefined;
}

/**
 * The judge of one dialer's connections: called once OpenSSL has checked the server's chain (at
 * secureConnect, or in TLS 1.2 when the client's flight is held), it returns why the server is
 * refused, or undefined when both verdicts accept.
 */
export function serverVerdict(o: VerdictOptions): (s: TLSSocket, presented?: DetailedPeerCertificate) => Error | undefined {
  let bundlePool: CertPool | undefined;
  const roots = (): CertPool => (o.bundle ? (bundlePool ??= certPool(o.bundle.certs)) : systemRoots());
  return (s, presented) => {
    const handle = (s as unknown as { _handle?: { verifyError?: () => Error | null } })._handle;
    if (typeof handle?.verifyError !== 'function') {
      return Object.assign(new Error("cannot read OpenSSL's verdict on the server on this Node.js version"), { code: 'ERR_KDYN_TLS_EARLY_VERIFY' });
    }
    const openSslVerdict = handle.verifyError();
    const go = verifyServer({ presented: peerChain(presented?.raw ? presented : s.getPeerCertificate(true)), roots: roots(), serverName: o.serverName, now: o.now() });
    if (go) return go;
    if (openSslVerdict) {
      o.log?.(`TLS: ${o.where}: Go's rules accept the server's certificate, OpenSSL does not (${openSslVerdict.message}); refused`);
      return Object.assign(openSslVerdict, { openSslVerify: true });
    }
    return undefined;
  };
}

let systemPool: CertPool | undefined;

/**
 * Node's default roots as Go would hold them, for Go's verdict when a kubeconfig has no CA: the roots
 * bundled with Node plus the NODE_EXTRA_CA_CERTS file, each block read by Go's rules (what Go would
 * skip is skipped, e.g. an `X509 CERTIFICATE` block OpenSSL takes), indexed by subject and parsed only
 * when a chain needs one (parsing all ~120-145 would cost ~60-70 ms of CPU). Where Node trusts more (its
 * --use-system-ca or --use-openssl-ca stores), OpenSSL may accept what Go's verdict cannot find a
 * root for: kdyn then refuses. Built on the first connection that needs it.
 */
function systemRoots(): CertPool {
  if (systemPool) return systemPool;
  const ders = tlsModule.rootCertificates.flatMap((pem) => certificateBlocks(Buffer.from(pem, 'latin1')));
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      ders.push(...certificateBlocks(readFileSync(extra)));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS and goes on without it
    }
  }
  systemPool = lazyCertPool(ders);
  return systemPool;
}

/**
 * The certificates the server sent (Node's getPeerCertificate(true), or the same object as Node handed
 * it to checkServerIdentity), leaf first, as Node exposes them (the leaf, then each issuer it
 * finds among them, then issuers from the trust store): DER, for Go's verdict.
 */
function peerChain(peer: DetailedPeerCertificate): Buffer[] {
  const chain: Buffer[] = [];
  for (let c = peer; c?.raw && !chain.some((x) => x.equals(c.raw)); c = c.issuerCertificate) chain.push(c.raw);
  return chain;
}
