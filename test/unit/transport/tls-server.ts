/**
 * Real TLS servers for the verification tests: a node:https server with certificates made in the
 * test (./certs.ts) that counts the decrypted bytes and requests it received and the client
 * certificates it saw, optionally behind a TCP forwarder that records every byte the client sent;
 * and a request through kdyn's transport with a token that must never reach an unverified server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { systemClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/log.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import type { RestConfig } from '../../../src/kubeconfig/types.js';
import { createTransport, type TransportOptions } from '../../../src/transport/http.js';
import type { Issued } from './certs.js';

/** OpenSSL's defaults at security level 0, so that a server can present SHA-1 test certificates. */
export const SERVE_ANY_SIGNATURE = 'DEFAULT@SECLEVEL=0';

export interface TestServer {
  url: string;
  port: number;
  /** Decrypted bytes the server received (request lines, headers, bodies). */
  bytes(): number;
  requests(): number;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Mutual TLS: client certificates must chain to this CA. */
  clientCa?: Issued;
  /** Ask for any client certificate and record its CN at every completed handshake. */
  anyClientCert?: boolean;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Key-exchange groups the server accepts (one the client does not offer first forces a HelloRetryRequest). */
  ecdhCurve?: string;
  /** Put a TCP forwarder in front that records every byte the client sends (`url` points at it). */
  capture?: boolean;
}

export type Served = TestServer & { clientCNs: string[]; handshakeCNs: string[]; fromClient(): Buffer };

export async function serve(leaf: Issued, chain: Issued[] = [], o: ServeOptions = {}): Promise<Served> {
  let bytes = 0;
  let requests = 0;
  const clientCNs: string[] = [];
  const handshakeCNs: string[] = [];
  const mtls = o.clientCa ? { requestCert: true, rejectUnauthorized: true, ca: o.clientCa.pem } : o.anyClientCert ? { requestCert: true, rejectUnauthorized: false } : {};
  const server: Server = createServer({ cert: [leaf.pem, ...chain.map((c) => c.pem)].join(''), key: leaf.keyPem, ciphers: SERVE_ANY_SIGNATURE, ...mtls, ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}), ...(o.ecdhCurve ? { ecdhCurve: o.ecdhCurve } : {}) }, (req, res) => {
    requests++;
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    if (peer?.subject?.CN) clientCNs.push(String(peer.subject.CN));
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
  });
  server.on('secureConnection', (s: TLSSocket) => {
    handshakeCNs.push(String(s.getPeerCertificate()?.subject?.CN ?? ''));
    s.on('data', (b: Buffer) => (bytes += b.length));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let port = (server.address() as AddressInfo).port;
  const raw: Buffer[] = [];
  let forwarder: NetServer | undefined;
  if (o.capture) {
    const target = port;
    forwarder = createNetServer((c) => {
      const up = netConnect(target, '127.0.0.1');
      c.on('data', (b: Buffer) => {
        raw.push(b);
        up.write(b);
      });
      up.on('data', (b: Buffer) => c.write(b));
      c.on('close', () => up.destroy());
      up.on('close', () => c.destroy());
      c.on('error', () => undefined);
      up.on('error', () => undefined);
    });
    await new Promise<void>((r) => forwarder!.listen(0, '127.0.0.1', r));
    port = (forwarder.address() as AddressInfo).port;
  }
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    clientCNs,
    handshakeCNs,
    fromClient: () => Buffer.concat(raw),
    bytes: () => bytes,
    requests: () => requests,
    close: () =>
      new Promise((r) => {
        forwarder?.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function config(server: string, caPem: string, over: Partial<RestConfig['tls']> = {}): RestConfig {
  return {
    server,
    tls: { caData: Buffer.from(caPem), insecure: false, ...over },
    credentials: tokenProvider('secret-token-must-not-leak'),
    namespace: 'default',
    namespaceExplicit: false,
    source: 'flags',
    files: [],
  };
}

export async function get(
  server: string,
  caPem: string,
  over: Partial<RestConfig['tls']> = {},
  extra: Partial<TransportOptions> = {},
): Promise<{ ok: true } | { ok: false; message: string }> {
  const t = createTransport(config(server, caPem, over), { logger: createLogger(0, { write: () => true }), clock: systemClock, env: {}, timeoutMs: 10_000, retry: { maxRetries: 0 }, ...extra });
  try {
    const r = await t.request({ path: '/version' });
    assert.equal(r.status, 200);
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  } finally {
    t.close();
  }
}

/** Node's own verification (OpenSSL, `ca` set, rejectUnauthorized): true when it accepts. */
export function nodeAccepts(port: number, caPem: string, servername?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername, rejectUnauthorized: true }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Plaintext handshake records of type `type` (1: ClientHello) in what a client sent. */
export function countHandshakeRecords(bytes: Buffer, type: number): number {
  let n = 0;
  for (let p = 0; p + 5 <= bytes.length; p += 5 + bytes.readUInt16BE(p + 3)) if (bytes[p] === 22 && bytes[p + 5] === type) n++;
  return n;
}
