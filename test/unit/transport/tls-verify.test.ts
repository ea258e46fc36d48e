/**
 * The JS verification of server certificates (src/transport/tls-verify.ts, used by dial.ts)
 * against real node:https servers with certificates generated here (node-forge). Every rejected
 * case also checks that not one decrypted byte (no request line, no Authorization header) reached
 * the server, and, where the two should agree, that Node's own OpenSSL verification decides the same.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/log.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import type { RestConfig } from '../../../src/kubeconfig/types.js';
import { createTransport } from '../../../src/transport/http.js';
import { createDialer } from '../../../src/transport/dial.js';
import { fastVerify, parseCaBundle } from '../../../src/transport/tls-verify.js';
import { DAY, issue, loadKeys, type Issued } from './certs.js';

interface TestServer {
  url: string;
  port: number;
  /** Decrypted bytes the server received (request lines, headers, bodies). */
  bytes(): number;
  requests(): number;
  close(): Promise<void>;
}

async function serve(leaf: Issued, chain: Issued[] = [], clientCa?: Issued): Promise<TestServer & { clientCNs: string[] }> {
  let bytes = 0;
  let requests = 0;
  const clientCNs: string[] = [];
  const mtls = clientCa ? { requestCert: true, rejectUnauthorized: true, ca: clientCa.pem } : {};
  const server: Server = createServer({ cert: [leaf.pem, ...chain.map((c) => c.pem)].join(''), key: leaf.keyPem, ...mtls }, (req, res) => {
    requests++;
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    if (peer?.subject?.CN) clientCNs.push(String(peer.subject.CN));
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
  });
  server.on('secureConnection', (s: TLSSocket) => s.on('data', (b: Buffer) => (bytes += b.length)));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    clientCNs,
    bytes: () => bytes,
    requests: () => requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function config(server: string, caPem: string, over: Partial<RestConfig['tls']> = {}): RestConfig {
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

async function get(server: string, caPem: string, over: Partial<RestConfig['tls']> = {}): Promise<{ ok: true } | { ok: false; message: string }> {
  const t = createTransport(config(server, caPem, over), { logger: createLogger(0, { write: () => true }), clock: systemClock, env: {}, timeoutMs: 10_000, retry: { maxRetries: 0 } });
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
function nodeAccepts(port: number, caPem: string, servername?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername, rejectUnauthorized: true }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

const UNKNOWN = 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority';
const EXPIRED = 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid';

describe('TLS verification in JS against the kubeconfig CA', () => {
  let root: Issued;
  let other: Issued;
  const servers: TestServer[] = [];
  const start = async (leaf: Issued, chain: Issued[] = []) => {
    const s = await serve(leaf, chain);
    servers.push(s);
    return s;
  };

  before(async () => {
    await loadKeys(6);
    root = issue({ cn: 'test-root', ca: true });
    other = issue({ cn: 'other-root', ca: true });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  test('a kubeconfig CA selects the JS verification; insecure or no CA keep Node\'s path', () => {
    assert.equal(createDialer('https://127.0.0.1:1', { caData: Buffer.from(root.pem), insecure: false }).verification, 'js');
    assert.equal(createDialer('https://127.0.0.1:1', { insecure: true }).verification, 'none');
    assert.equal(createDialer('https://127.0.0.1:1', { insecure: false }).verification, 'node');
    // Unparsable CA data: Node's path, which reports it as it always did.
    assert.equal(createDialer('https://127.0.0.1:1', { caData: Buffer.from('not a pem'), insecure: false }).verification, 'openssl');
    assert.equal(createDialer('http://127.0.0.1:1', { insecure: false }).verification, 'none');
  });

  test('valid chain: the request goes through (IP SAN, and a DNS name via tls-server-name)', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1', 'kube.example'] }));
    assert.deepEqual(await get(s.url, root.pem), { ok: true });
    assert.deepEqual(await get(s.url, root.pem, { serverName: 'kube.example' }), { ok: true });
    assert.equal(s.requests(), 2);
    assert.ok(s.bytes() > 0, 'the byte counter sees accepted requests');
    assert.equal(await nodeAccepts(s.port, root.pem), true);
  });

  test('client certificates still authenticate the client (mutual TLS) on the verifying path', async () => {
    const client = issue({ cn: 'kdyn-client', issuer: root, eku: 'clientAuth' });
    const s = await serve(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), [], root);
    servers.push(s);
    assert.deepEqual(await get(s.url, root.pem, { certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) }), { ok: true });
    assert.deepEqual(s.clientCNs, ['kdyn-client']);
    // Without the client certificate the server refuses the handshake.
    assert.equal((await get(s.url, root.pem)).ok, false);
  });

  test('CA bundle with several certificates: any of them may anchor the chain', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }));
    assert.deepEqual(await get(s.url, other.pem + root.pem), { ok: true });
  });

  test('wrong CA: unknown authority, nothing sent', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }));
    assert.deepEqual(await get(s.url, other.pem), { ok: false, message: UNKNOWN });
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, other.pem), false);
  });

  test('wrong host: kubectl\'s "valid for ..., not ..." message, nothing sent', async () => {
    const s = await start(issue({ cn: '127.0.0.1', issuer: root, san: ['other.example', '10.0.0.1'] }));
    const r = await get(s.url, root.pem);
    assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate is valid for other.example, 10.0.0.1, not 127.0.0.1' });
    const r2 = await get(s.url, root.pem, { serverName: 'kube.example' });
    assert.equal(r2.ok, false);
    assert.match((r2 as { message: string }).message, /not kube\.example$/);
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('no SAN at all: the CN is not used (Go), nothing sent', async () => {
    const s = await start(issue({ cn: 'localhost', issuer: root }));
    const r = await get(s.url.replace('127.0.0.1', 'localhost'), root.pem);
    assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match localhost' });
    assert.equal(s.bytes(), 0);
  });

  test('wildcards match one whole label only', async () => {
    const s = await start(issue({ cn: 'w', issuer: root, san: ['*.example.com', 'f*.other.com'] }));
    assert.deepEqual(await get(s.url, root.pem, { serverName: 'api.example.com' }), { ok: true });
    assert.equal((await get(s.url, root.pem, { serverName: 'a.b.example.com' })).ok, false);
    assert.equal((await get(s.url, root.pem, { serverName: 'foo.other.com' })).ok, false);
  });

  test('expired leaf and not-yet-valid leaf: expiry message, nothing sent', async () => {
    const expired = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], notBefore: Date.now() - 10 * DAY, notAfter: Date.now() - DAY }));
    const future = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], notBefore: Date.now() + DAY, notAfter: Date.now() + 10 * DAY }));
    assert.deepEqual(await get(expired.url, root.pem), { ok: false, message: EXPIRED });
    assert.deepEqual(await get(future.url, root.pem), { ok: false, message: EXPIRED });
    assert.equal(expired.bytes() + future.bytes(), 0);
    assert.equal(await nodeAccepts(expired.port, root.pem), false);
    assert.equal(await nodeAccepts(future.port, root.pem), false);
  });

  test('intermediate CA presented by the server: valid chain accepted', async () => {
    const inter = issue({ cn: 'intermediate', issuer: root, ca: true });
    const s = await start(issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), [inter]);
    assert.deepEqual(await get(s.url, root.pem), { ok: true });
    assert.equal(await nodeAccepts(s.port, root.pem), true);
    // Without the intermediate in the presented chain, the leaf does not reach the root.
    const bare = await start(issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }));
    assert.deepEqual(await get(bare.url, root.pem), { ok: false, message: UNKNOWN });
    assert.equal(bare.bytes(), 0);
  });

  test('intermediate without the CA flag: unknown authority, nothing sent', async () => {
    const notCa = issue({ cn: 'not-a-ca', issuer: root, ca: false, eku: 'none' });
    const s = await start(issue({ cn: 'srv', issuer: notCa, san: ['127.0.0.1'] }), [notCa]);
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: UNKNOWN });
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('expired intermediate: rejected, nothing sent', async () => {
    const inter = issue({ cn: 'old-intermediate', issuer: root, ca: true, notBefore: Date.now() - 10 * DAY, notAfter: Date.now() - DAY });
    const s = await start(issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), [inter]);
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: EXPIRED });
    assert.equal(s.bytes(), 0);
  });

  test('leaf whose extended key usage is clientAuth only: incompatible key usage, nothing sent', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], eku: 'clientAuth' }));
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate specifies an incompatible key usage' });
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('self-signed serving certificate: trusted when it is itself in the CA bundle, else unknown authority', async () => {
    const self = issue({ cn: 'self', san: ['127.0.0.1'] });
    const s = await start(self);
    assert.deepEqual(await get(s.url, self.pem), { ok: true });
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: UNKNOWN });
    assert.equal(s.requests(), 1);
    assert.equal(await nodeAccepts(s.port, self.pem), true);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('a leaf signed by a different key with the CA\'s name is refused (signature checked, not just names)', async () => {
    const impostor = issue({ cn: 'test-root', ca: true }); // same subject as root, other key
    const s = await start(issue({ cn: 'srv', issuer: impostor, san: ['127.0.0.1'] }), [impostor]);
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: UNKNOWN });
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('verifyServerChain: an expired anchor and the depth limit are enforced (injected time)', () => {
    const leaf = issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] });
    const x = (i: Issued) => new X509Certificate(i.pem);
    assert.equal(verifyServerChain(x(leaf), [], [x(root)], '127.0.0.1', Date.now()), undefined);
    // Past the root's notAfter (leaf checked first: past its own too).
    assert.equal(verifyServerChain(x(leaf), [], [x(root)], '127.0.0.1', Date.now() + 365 * DAY)?.code, 'CERT_HAS_EXPIRED');
    const shortRoot = issue({ cn: 'short-root', ca: true, notAfter: Date.now() + 2 * DAY });
    const longLeaf = issue({ cn: 'srv', issuer: shortRoot, san: ['127.0.0.1'], notAfter: Date.now() + 20 * DAY });
    assert.equal(verifyServerChain(x(longLeaf), [], [x(shortRoot)], '127.0.0.1', Date.now() + 5 * DAY)?.code, 'CERT_HAS_EXPIRED');
    // A chain of 12 intermediates is longer than MAX_CHAIN_DEPTH.
    let issuer = root;
    const chain: Issued[] = [];
    for (let i = 0; i < 12; i++) chain.unshift((issuer = issue({ cn: `i${i}`, issuer, ca: true })));
    const deepLeaf = issue({ cn: 'srv', issuer, san: ['127.0.0.1'] });
    assert.equal(verifyServerChain(x(deepLeaf), chain.map(x), [x(root)], '127.0.0.1', Date.now())?.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    assert.equal(verifyServerChain(x(deepLeaf), chain.slice(0, 1).map(x), [x(chain[0]!)], '127.0.0.1', Date.now()), undefined);
  });

  test('parseCaBundle: every certificate of a bundle, undefined for garbage', () => {
    assert.equal(parseCaBundle(root.pem + '\n' + other.pem)?.length, 2);
    assert.equal(parseCaBundle('garbage'), undefined);
    assert.equal(parseCaBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), undefined);
  });
});
