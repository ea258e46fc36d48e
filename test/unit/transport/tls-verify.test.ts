/**
 * The verification of server certificates (Go's verdict in src/transport/x509-verify.ts and
 * OpenSSL's, both required by dial.ts)
 * against real node:https servers with certificates generated here (node-forge). Every rejected
 * case also checks that not one decrypted byte (no request line, no Authorization header) reached
 * the server, and, where the two should agree, that Node's own OpenSSL verification decides the same.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, Socket, type AddressInfo } from 'node:net';
import { systemClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/log.js';
import type { CredentialProvider } from '../../../src/kubeconfig/types.js';
import { createTransport } from '../../../src/transport/http.js';
import { onlyHelloRecords } from '../../../src/transport/gate.js';
import { toConnectionError } from '../../../src/transport/errors.js';
import { createDialer, DEFAULT_TIMEOUTS } from '../../../src/transport/dial.js';
import { caBundleProblem, readCaBundle } from '../../../src/transport/go-pem.js';
import { parseCertificate } from '../../../src/transport/x509-parse.js';
import { certPool, lazyCertPool, verifyServer } from '../../../src/transport/x509-verify.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findKubectl } from '../../../bench/tools.js';
import { runCommand } from '../../support/cli.js';
import { DAY, issue, loadKeys, type Issued } from './certs.js';
import { config, countHandshakeRecords, get, nodeAccepts, serve, type ServeOptions, type TestServer } from './tls-server.js';

const UNKNOWN = 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority';
const EXPIRED = 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
/** Go's words with Go's detail, as kubectl prints them (`...: current time T is after T`). */
function assertExpired(r: { ok: boolean; message?: string }): void {
  assert.equal(r.ok, false);
  assert.match(r.message ?? '', new RegExp(`^${EXPIRED.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: current time \\S+ is (after|before) \\S+$`));
}

describe('TLS verification against the kubeconfig CA', () => {
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

  test('a kubeconfig CA selects OpenSSL with the bundle; insecure or no CA keep Node\'s path', () => {
    assert.equal(createDialer('https://127.0.0.1:1', { caData: Buffer.from(root.pem), insecure: false }).verification, 'openssl');
    assert.equal(createDialer('https://127.0.0.1:1', { insecure: true }).verification, 'none');
    assert.equal(createDialer('https://127.0.0.1:1', { insecure: false }).verification, 'node');
    // CA data with no certificate Go accepts is refused before a dialer is made (http.ts); the dialer never falls back.
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
    const s = await serve(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), [], { clientCa: root });
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
    assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate is valid for 10.0.0.1, not 127.0.0.1' }); // Go lists the IP SANs for an IP
    const r2 = await get(s.url, root.pem, { serverName: 'kube.example' });
    assert.equal(r2.ok, false);
    assert.match((r2 as { message: string }).message, /not kube\.example$/);
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('no SAN at all: the CN is not used (Go), nothing sent; a CN that would match gets Go\'s legacy-CN message', async () => {
    const s = await start(issue({ cn: 'localhost', issuer: root }));
    const r = await get(s.url.replace('127.0.0.1', 'localhost'), root.pem);
    assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead' });
    const other = await get(s.url, root.pem);
    assert.deepEqual(other, { ok: false, message: 'Unable to connect to the server: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn\'t contain any IP SANs' });
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
    assertExpired(await get(expired.url, root.pem));
    assertExpired(await get(future.url, root.pem));
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
    assertExpired(await get(s.url, root.pem));
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
    // kubectl v1.32's words (checked): the signature's failure is the hint.
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: `${UNKNOWN} (possibly because of "crypto/rsa: verification error" while trying to verify candidate authority certificate "test-root")` });
    assert.equal(s.bytes(), 0);
    assert.equal(await nodeAccepts(s.port, root.pem), false);
  });

  test('verifyServer (Go\'s verdict): an expired leaf or anchor is refused at an injected time; intermediates are built', () => {
    const leaf = issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] });
    const der = (i: Issued) => Buffer.from(new X509Certificate(i.pem).raw);
    const pool = (...cas: Issued[]) => certPool(cas.map((c) => parseCertificate(der(c))));
    const check = (chain: Issued[], anchors: Issued[], now = Date.now()) => verifyServer({ presented: chain.map(der), roots: pool(...anchors), serverName: '127.0.0.1', now });
    assert.equal(check([leaf], [root]), undefined);
    // Past the root's notAfter (leaf checked first: past its own too).
    assert.equal(check([leaf], [root], Date.now() + 365 * DAY)?.code, 'CERT_HAS_EXPIRED');
    const shortRoot = issue({ cn: 'short-root', ca: true, notAfter: Date.now() + 2 * DAY });
    const longLeaf = issue({ cn: 'srv', issuer: shortRoot, san: ['127.0.0.1'], notAfter: Date.now() + 20 * DAY });
    assert.match(check([longLeaf], [shortRoot], Date.now() + 5 * DAY)?.message ?? '', /^certificate has expired or is not yet valid: current time \S+ is after \S+$/);
    const inter = issue({ cn: 'i', issuer: root, ca: true });
    assert.equal(check([issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), inter], [root]), undefined);
    assert.match(check([issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] })], [root])?.message ?? '', /^certificate signed by unknown authority$/);
    assert.equal(check([issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], unknownExt: 'critical' })], [root])?.message, 'unhandled critical extension');
    assert.equal(check([issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], unknownExt: 'non-critical' })], [root]), undefined);
    assert.match(check([issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], badDate: true })], [root])?.message ?? '', /failed to parse certificate from server: x509: malformed UTCTime/);
  });

  test('the same certificate bytes in new Buffers (each connection\'s) are parsed once; the verdict at each time is still its own', () => {
    const leaf = issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] });
    const der = (i: Issued) => Buffer.from(new X509Certificate(i.pem).raw);
    assert.equal(parseCertificate(der(leaf)), parseCertificate(der(leaf)), 'one parse per content');
    assert.notEqual(parseCertificate(der(leaf)), parseCertificate(der(other)));
    const bad = Buffer.from('3003020101', 'hex');
    assert.throws(() => parseCertificate(Buffer.from(bad)), /malformed/);
    assert.throws(() => parseCertificate(Buffer.from(bad)), /malformed/, 'a failed parse fails again');
    // A connection after the leaf's expiry is refused although an earlier one with the same bytes passed.
    const roots = certPool([parseCertificate(der(root))]);
    const check = (now: number) => verifyServer({ presented: [der(leaf)], roots, serverName: '127.0.0.1', now });
    assert.equal(check(Date.now()), undefined);
    assert.equal(check(Date.now() + 365 * DAY)?.code, 'CERT_HAS_EXPIRED');
    assert.equal(check(Date.now()), undefined);
    // An impostor with the same subject, signed by another key, is still refused after the real one passed.
    const impostor = issue({ cn: 'srv', issuer: other, san: ['127.0.0.1'] });
    assert.match(verifyServer({ presented: [der(impostor)], roots, serverName: '127.0.0.1', now: Date.now() })?.message ?? '', /unknown authority/);
  });

  test('lazyCertPool (Node\'s roots, parsed when asked for) finds what certPool finds; what Go cannot parse is left out', () => {
    const der = (i: Issued) => Buffer.from(new X509Certificate(i.pem).raw);
    const leaf = parseCertificate(der(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] })));
    const garbage = Buffer.from('3003020101', 'hex');
    const lazy = lazyCertPool([garbage, der(other), der(root)]);
    const eager = certPool([parseCertificate(der(other)), parseCertificate(der(root))]);
    assert.deepEqual(lazy.find(leaf).map((c) => c.raw), eager.find(leaf).map((c) => c.raw));
    assert.equal(lazy.find(leaf).length, 1);
    assert.equal(lazy.contains(parseCertificate(der(root))), true);
    assert.equal(lazy.contains(leaf), false);
  });

  test('readCaBundle: Go\'s AppendCertsFromPEM (garbage and undecodable blocks skipped, never the whole bundle)', () => {
    assert.equal(readCaBundle(Buffer.from(root.pem + '\n' + other.pem)).certs.length, 2);
    assert.equal(readCaBundle(Buffer.from('garbage')).certs.length, 0);
    assert.equal(readCaBundle(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).certs.length, 0);
    assert.equal(readCaBundle(Buffer.from(root.pem + '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' + other.pem)).certs.length, 2);
    assert.equal(caBundleProblem(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')), 'failed to parse certificate: x509: malformed certificate');
    assert.equal(caBundleProblem(Buffer.from('garbage')), 'unable to parse bytes as PEM block');
    assert.equal(caBundleProblem(Buffer.from(root.pem.replace(/CERTIFICATE/g, 'TRUSTED CERTIFICATE'))), 'no valid certificate authority data seen');
  });
});

describe('the rows of issue 9: chains with intermediates and constraints, timeouts, client certificates', () => {
  let root: Issued;
  let other: Issued;
  const servers: TestServer[] = [];
  const start = async (leaf: Issued, chain: Issued[] = [], o: ServeOptions = {}) => {
    const s = await serve(leaf, chain, o);
    servers.push(s);
    return s;
  };
  before(async () => {
    await loadKeys(6);
    root = issue({ cn: 'rows-root', ca: true });
    other = issue({ cn: 'rows-other', ca: true });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  const X509 = 'Unable to connect to the server: tls: failed to verify certificate: x509: ';

  test('an intermediate with pathlen:0 that signs a sub-CA: too many intermediates, nothing sent', async () => {
    const inter = issue({ cn: 'int', issuer: root, ca: true, pathLen: 0 });
    const sub = issue({ cn: 'sub', issuer: inter, ca: true });
    const s = await start(issue({ cn: 'srv', issuer: sub, san: ['127.0.0.1'] }), [sub, inter]);
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: `${X509}too many intermediates for path length constraint` });
    assert.equal(s.bytes(), 0);
    // The same chain without the constraint is accepted (through OpenSSL).
    const inter2 = issue({ cn: 'int2', issuer: root, ca: true });
    const sub2 = issue({ cn: 'sub2', issuer: inter2, ca: true });
    const ok = await start(issue({ cn: 'srv', issuer: sub2, san: ['127.0.0.1'] }), [sub2, inter2]);
    assert.deepEqual(await get(ok.url, root.pem), { ok: true });
  });

  test('name constraints on an intermediate (DNS:allowed.example, IP:10.0.0.0/8) and a leaf for 127.0.0.1: not authorized, nothing sent', async () => {
    const inter = issue({ cn: 'nc', issuer: root, ca: true, permitted: ['DNS:allowed.example', 'IP:10.0.0.0/8'] });
    const s = await start(issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), [inter]);
    // kubectl v1.32's words (checked), Go's detail included.
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: `${X509}a root or intermediate certificate is not authorized to sign for this name: IP address "127.0.0.1" is not permitted by any constraint` });
    assert.equal(s.bytes(), 0);
    // On the anchor itself too.
    const ncRoot = issue({ cn: 'nc-root', ca: true, excluded: ['IP:127.0.0.0/8'] });
    const s2 = await start(issue({ cn: 'srv', issuer: ncRoot, san: ['127.0.0.1'] }));
    assert.equal((await get(s2.url, ncRoot.pem)).ok, false);
    assert.equal(s2.bytes(), 0);
    // Within the constraints: accepted.
    const s3 = await start(issue({ cn: 'srv', issuer: inter, san: ['10.1.2.3', 'api.allowed.example'] }), [inter]);
    assert.deepEqual(await get(s3.url, root.pem, { serverName: 'api.allowed.example' }), { ok: true });
  });

  test('a leaf with an unknown critical extension: unhandled critical extension, nothing sent (non-critical: accepted)', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], unknownExt: 'critical' }));
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: `${X509}unhandled critical extension` });
    assert.equal(s.bytes(), 0);
    const fine = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], unknownExt: 'non-critical' }));
    assert.deepEqual(await get(fine.url, root.pem), { ok: true });
  });

  test('a validity date that does not parse: rejected, nothing sent', async () => {
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], badDate: true }));
    const r = await get(s.url, root.pem);
    assert.equal(r.ok, false);
    assert.match((r as { message: string }).message, /^Unable to connect to the server: tls: /);
    assert.equal(s.bytes(), 0);
  });

  test('a TLS tarpit (accepts, never answers): TLS handshake timeout', async () => {
    const tarpit = createNetServer(() => undefined);
    await new Promise<void>((r) => tarpit.listen(0, '127.0.0.1', r));
    const port = (tarpit.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const r = await get(`https://127.0.0.1:${port}`, root.pem, {}, { timeouts: { tlsHandshakeMs: 150 } });
      assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: net/http: TLS handshake timeout' });
      // Which timeout ended it (not a speed limit): the 150 ms asked for, not the 10 s default.
      assert.ok(Date.now() - started < DEFAULT_TIMEOUTS.tlsHandshakeMs, 'the configured handshake timeout applied');
    } finally {
      tarpit.close();
    }
  });

  test('a stalled TCP connect: dial timeout, worded as Go\'s', async () => {
    // A socket that never connects stands in for a host that drops SYNs.
    const d = createDialer('https://10.0.0.1:6443', { caData: Buffer.from(root.pem), insecure: false }, { connect: () => new Socket(), timeouts: { dialMs: 50 } });
    const e = await d.dial().then(() => undefined, (err: Error) => err);
    assert.ok(e);
    assert.equal(toConnectionError(e, '10.0.0.1:6443', 'GET https://10.0.0.1:6443/version').message, 'Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout');
  });

  test('a proxy that never answers CONNECT: bounded, proxyconnect message', async () => {
    const proxy = createNetServer(() => undefined);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as AddressInfo).port;
    try {
      const r = await get('https://kube.example:6443', root.pem, {}, { env: { HTTPS_PROXY: `http://127.0.0.1:${port}` }, timeouts: { proxyConnectMs: 150 } });
      assert.deepEqual(r, { ok: false, message: 'Unable to connect to the server: proxyconnect tcp: context deadline exceeded' });
    } finally {
      proxy.close();
    }
  });

  for (const version of ['TLSv1.3', 'TLSv1.2'] as const) {
    test(`${version}: a client certificate is never sent to a server that fails verification `, async () => {
      const client = issue({ cn: 'system:admin', issuer: root, eku: 'clientAuth' });
      const cert = { certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) };
      const inter = issue({ cn: 'int', issuer: other, ca: true });
      for (const [leaf, chain] of [
        [issue({ cn: 'srv', issuer: other, san: ['127.0.0.1'] }), []], // unknown authority
        [issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), [inter]], // OpenSSL path: unknown authority
        [issue({ cn: 'srv', issuer: root, san: ['10.9.9.9'] }), []], // right CA, wrong name
      ] as Array<[Issued, Issued[]]>) {
        const s = await start(leaf, chain, { anyClientCert: true, maxVersion: version, capture: true });
        const r = await get(s.url, root.pem, cert);
        assert.equal(r.ok, false);
        assert.deepEqual(s.handshakeCNs, [], 'the server completed no handshake');
        const sent = s.fromClient();
        assert.ok(sent.length > 0);
        assert.ok(onlyHelloRecords(sent), `only ClientHello records left the client (${sent.length} bytes)`);
        assert.equal(sent.indexOf(new X509Certificate(client.pem).raw), -1);
        assert.equal(s.bytes(), 0);
      }
    });

    test(`${version}: with a verified server, the client certificate authenticates `, async () => {
      const client = issue({ cn: 'kdyn-client', issuer: root, eku: 'clientAuth' });
      const cert = { certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) };
      const inter = issue({ cn: 'int', issuer: root, ca: true });
      for (const [leaf, chain] of [
        [issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), []],
        [issue({ cn: 'srv', issuer: inter, san: ['127.0.0.1'] }), [inter]],
      ] as Array<[Issued, Issued[]]>) {
        const s = await start(leaf, chain, { clientCa: root, maxVersion: version });
        assert.deepEqual(await get(s.url, root.pem, cert), { ok: true });
        assert.deepEqual(s.clientCNs, ['kdyn-client']);
      }
    });
  }

  test('TLS 1.3 HelloRetryRequest: the second ClientHello passes the gate; the client certificate authenticates', async () => {
    const client = issue({ cn: 'kdyn-client', issuer: root, eku: 'clientAuth' });
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), [], { clientCa: root, ecdhCurve: 'secp384r1', capture: true });
    assert.deepEqual(await get(s.url, root.pem, { certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) }, { timeouts: { tlsHandshakeMs: 3000 } }), { ok: true });
    assert.deepEqual(s.clientCNs, ['kdyn-client']);
    // Two ClientHellos went out (the retry), each as its own record.
    const hellos = countHandshakeRecords(s.fromClient(), 1);
    assert.equal(hellos, 2);
  });

  test('a gated connection (client certificate) unrefs its TCP socket with it: an idle pool never keeps the process alive', async () => {
    const client = issue({ cn: 'kdyn-client', issuer: root, eku: 'clientAuth' });
    const s = await start(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), [], { clientCa: root });
    const d = createDialer(s.url, { caData: Buffer.from(root.pem), insecure: false, certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) });
    const sock = await d.dial();
    const tcpHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    try {
      const before = tcpHandles();
      sock.unref();
      assert.equal(tcpHandles(), before - 1);
      sock.ref();
      assert.equal(tcpHandles(), before);
    } finally {
      sock.destroy();
    }
  });

  test('plain http:// server: no credentials of any kind are asked for or sent; -v=6 says so', async () => {
    const seen: Array<string | undefined> = [];
    const plain = createHttpServer((req, res) => {
      seen.push(req.headers.authorization);
      res.setHeader('Content-Type', 'application/json');
      res.end('{"major":"1","minor":"32"}');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const port = (plain.address() as AddressInfo).port;
    const asked: string[] = [];
    const logs: string[] = [];
    const credentials: CredentialProvider = {
      kind: 'exec',
      getAuthorization: async () => {
        asked.push('authorization');
        return 'Bearer secret-token-must-not-leak';
      },
      getClientCertificate: async () => {
        asked.push('client certificate');
        return undefined;
      },
      refreshAfterUnauthorized: async () => false,
    };
    try {
      const t = createTransport(
        { ...config(`http://127.0.0.1:${port}`, root.pem), tls: { insecure: false }, credentials, impersonate: { user: 'someone' } },
        { logger: createLogger(6, { write: (l: string) => logs.push(l) > 0 }), clock: systemClock, env: {}, timeoutMs: 5000, retry: { maxRetries: 0 } },
      );
      const r = await t.request({ path: '/version' });
      t.close();
      assert.equal(r.status, 200);
      assert.deepEqual(seen, [undefined]);
      assert.deepEqual(asked, []);
      assert.ok(logs.some((l) => l.includes('Not sending credentials to http://127.0.0.1:') && l.includes('(exec)')), logs.join(''));
      assert.ok(!logs.join('').includes('secret-token'));
    } finally {
      plain.close();
    }
  });
});

describe("issue 33: messages in Go's words", () => {
  let root: Issued;
  const servers: TestServer[] = [];
  before(async () => {
    await loadKeys(6);
    root = issue({ cn: 'msg-root', ca: true });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  test('a TLS 1.2 server that aborts the handshake (it demands a client certificate): `remote error: tls: handshake failure`, as kubectl says', async (t) => {
    const clientCa = issue({ cn: 'client-ca', ca: true });
    const s = await serve(issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] }), [], { clientCa, maxVersion: 'TLSv1.2' });
    servers.push(s);
    const expected = 'Unable to connect to the server: remote error: tls: handshake failure';
    assert.deepEqual(await get(s.url, root.pem), { ok: false, message: expected });
    assert.equal(s.bytes(), 0);
    const kubectl = findKubectl();
    if (!kubectl) {
      t.diagnostic('kubectl not on PATH: the message is not compared with kubectl');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'kdyn-tls-msg-'));
    try {
      const file = join(dir, 'kubeconfig');
      writeFileSync(file, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${s.url}\n    certificate-authority-data: ${Buffer.from(root.pem).toString('base64')}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`);
      const r = await runCommand(kubectl.path, ['version', '-o', 'json', '--kubeconfig', file, '--request-timeout', '10s'], { env: { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000 });
      assert.equal(r.err.trim().split('\n').pop()?.replace(/^error: /, ''), expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a result only OpenSSL refuses (Go accepts) is worded as an x509 error, never as OpenSSL text', () => {
    const e = Object.assign(new Error('RFC 3779 resource not subset of parent\'s resources'), { code: 'UNNESTED_RESOURCE', openSslVerify: true });
    assert.equal(toConnectionError(e, '127.0.0.1:1', 'GET /version').message, "Unable to connect to the server: tls: failed to verify certificate: x509: RFC 3779 resource not subset of parent's resources");
    // OpenSSL 3.0 (Node 20) and 3.5 (Node 22, 24) word and code the same alert differently.
    const raw30 = Object.assign(new Error('C0A7B2F1:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 40'), { code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' });
    assert.equal(toConnectionError(raw30, '127.0.0.1:1', 'GET /version').message, 'Unable to connect to the server: remote error: tls: handshake failure');
    const raw35 = Object.assign(new Error('40CDA23C1B7F0000:error:0A000410:SSL routines:ssl3_read_bytes:ssl/tls alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 42'), { code: 'ERR_SSL_SSL/TLS_ALERT_BAD_CERTIFICATE' });
    assert.equal(toConnectionError(raw35, '127.0.0.1:1', 'GET /version').message, 'Unable to connect to the server: remote error: tls: bad certificate');
  });
});
