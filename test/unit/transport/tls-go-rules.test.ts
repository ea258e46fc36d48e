/**
 * Issue 20: the cases where kdyn used to send the token (and the client certificate) to a server
 * kubectl refuses, each over real TLS on loopback, with the bundle (OpenSSL's and Go's verdicts), TLS 1.2 and 1.3, with a client certificate: rejected with Go's words, the
 * server saw no request byte, completed no handshake, and received nothing after the ClientHello.
 * Every expected message was taken from kubectl v1.32 against the same kind of server.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { TransportOptions } from '../../../src/transport/http.js';
import { onlyHelloRecords } from '../../../src/transport/gate.js';
import { issue, loadKeys, type CertSpec, type Issued } from './certs.js';
import { get, serve, type TestServer } from './tls-server.js';

const X509 = 'Unable to connect to the server: tls: failed to verify certificate: x509: ';
const MODES: Array<[string, Partial<TransportOptions>]> = [['OpenSSL and Go', {}]];
const cannotSign = (cn: string) =>
  `${X509}certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "${cn}")`;

describe('issue 20: Go\'s rules in every verification mode, nothing sent to a server that fails them', () => {
  let root: Issued;
  let client: Issued;
  const servers: Array<TestServer | { close(): Promise<void> }> = [];
  before(async () => {
    await loadKeys(6);
    root = issue({ cn: 'go-root', ca: true });
    client = issue({ cn: 'system:admin', issuer: root, eku: 'clientAuth' });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  /** The server `leaf` (+ `chain`) is refused with `message` in every mode and TLS version; nothing but ClientHellos reached it. */
  async function refused(leaf: Issued, chain: Issued[], caPem: string, message: string | RegExp, o: { host?: 'localhost'; serverName?: string } = {}): Promise<void> {
    const certData = Buffer.from(client.pem);
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      const s = await serve(leaf, chain, { anyClientCert: true, maxVersion: version, capture: true });
      servers.push(s);
      const url = o.host ? s.url.replace('127.0.0.1', o.host) : s.url;
      for (const [mode, extra] of MODES) {
        const r = await get(url, caPem, { certData, keyData: Buffer.from(client.keyPem), ...(o.serverName ? { serverName: o.serverName } : {}) }, extra);
        const what = `${mode}, ${version}`;
        assert.equal(r.ok, false, `${what}: accepted`);
        const got = (r as { message: string }).message;
        if (typeof message === 'string') assert.equal(got, message, what);
        else assert.match(got, message, what);
      }
      assert.equal(s.requests(), 0);
      assert.equal(s.bytes(), 0, 'no request byte reached the server');
      assert.deepEqual(s.handshakeCNs, [], 'the server completed no handshake (no client certificate)');
      const sent = s.fromClient();
      assert.ok(sent.length > 0 && onlyHelloRecords(sent), `only ClientHello records left the client (${sent.length} bytes)`);
      assert.equal(sent.indexOf(new X509Certificate(client.pem).raw), -1);
    }
  }

  /** The server is accepted in every mode. */
  async function accepted(leaf: Issued, chain: Issued[], caPem: string, o: { serverName?: string } = {}): Promise<void> {
    const s = await serve(leaf, chain);
    servers.push(s);
    for (const [mode, extra] of MODES) {
      assert.deepEqual(await get(s.url, caPem, o.serverName ? { serverName: o.serverName } : {}, extra), { ok: true }, mode);
    }
  }

  const leafWith = (altNames: CertSpec['altNames'], issuer = root) => issue({ cn: 'srv', issuer, altNames });

  test('email, URI and DirName entries whose text imitates a DNS name never count as one', async () => {
    for (const spoof of [
      { type: 'email', value: 'a DNS:localhost' },
      { type: 'email', value: 'x@y, DNS:localhost' },
      { type: 'URI', value: 'https://attacker.example/DNS:localhost' },
      { type: 'dirName', value: 'DNS:localhost' },
      { type: 'dirName', value: '", DNS:localhost, "' },
    ] as const) {
      await refused(leafWith([{ type: 'DNS', value: 'attacker.example' }, spoof]), [], root.pem, `${X509}certificate is valid for attacker.example, not localhost`, { host: 'localhost' });
    }
  });

  test('entries whose text imitates an IP entry never count as one', async () => {
    for (const spoof of [
      { type: 'email', value: 'a IP Address:127.0.0.1' },
      { type: 'URI', value: 'https://attacker.example/?IP Address:127.0.0.1' },
      { type: 'dirName', value: 'IP Address:127.0.0.1' },
      { type: 'DNS', value: '127.0.0.1' },
    ] as const) {
      await refused(leafWith([{ type: 'DNS', value: 'attacker.example' }, spoof]), [], root.pem, /x509: cannot validate certificate for 127\.0\.0\.1 because it doesn't contain any IP SANs$/);
    }
  });

  test('a DNS entry holding commas, quotes, colons or a NUL is one (non-matching) name', async () => {
    for (const value of ['attacker.example, DNS:localhost', 'attacker.example", DNS:"localhost', 'localhost\0.attacker.example', 'localhost:443']) {
      await refused(leafWith([{ type: 'DNS', value }]), [], root.pem, `${X509}certificate is valid for ${value}, not localhost`, { host: 'localhost' });
    }
  });

  test('under a name-constrained intermediate, an imitated name is still no name (OpenSSL checks the real ones only)', async () => {
    const inter = issue({ cn: 'nc-int', issuer: root, ca: true, permitted: ['DNS:attacker.example'] });
    const leaf = leafWith([{ type: 'DNS', value: 'attacker.example' }, { type: 'email', value: 'a DNS:localhost' }], inter);
    await refused(leaf, [inter], root.pem, `${X509}certificate is valid for attacker.example, not localhost`, { host: 'localhost' });
  });

  test('under a name-constrained CA, a DNS or email name Go cannot parse refuses the chain, even beside the right name', async () => {
    const inter = issue({ cn: 'nc-int2', issuer: root, ca: true, permitted: ['DNS:localhost'] });
    const withEmail = leafWith([{ type: 'DNS', value: 'localhost' }, { type: 'email', value: 'a DNS:localhost' }], inter);
    await refused(withEmail, [inter], root.pem, `${X509}cannot parse rfc822Name {"" ""}`, { host: 'localhost' });
    const withDns = leafWith([{ type: 'DNS', value: 'localhost' }, { type: 'DNS', value: 'x, DNS:localhost' }], inter);
    await refused(withDns, [inter], root.pem, `${X509}cannot parse dnsName "x, DNS:localhost"`, { host: 'localhost' });
  });

  test('real DNS and IP entries beside imitations still match (IPv4-mapped IPv6 included, as Go)', async () => {
    await accepted(leafWith([{ type: 'email', value: 'DNS:nothing' }, { type: 'IP', value: '127.0.0.1' }]), [], root.pem);
    await accepted(leafWith([{ type: 'IP', value: '::ffff:7f00:1' }]), [], root.pem);
    await accepted(leafWith([{ type: 'URI', value: 'spiffe://x/y' }, { type: 'DNS', value: '*.kube.example' }]), [], root.pem, { serverName: 'api.kube.example' });
  });

  test('a non-CA certificate of the bundle cannot sign: CA:FALSE, no basicConstraints, no keyCertSign', async () => {
    const notCa = issue({ cn: 'not-a-ca', ca: false, ku: 'none', eku: 'none' });
    await refused(issue({ cn: 'srv', issuer: notCa, san: ['127.0.0.1'] }), [], notCa.pem, cannotSign('not-a-ca'));
    const noBc = issue({ cn: 'no-bc', noBasicConstraints: true, ku: 'none', eku: 'none' });
    await refused(issue({ cn: 'srv', issuer: noBc, san: ['127.0.0.1'] }), [], noBc.pem, cannotSign('no-bc'));
    // keyCertSign without basicConstraints: OpenSSL takes it as an anchor, Go does not.
    const kuOnly = issue({ cn: 'ku-only', noBasicConstraints: true, ku: 'ca', eku: 'none' });
    await refused(issue({ cn: 'srv', issuer: kuOnly, san: ['127.0.0.1'] }), [], kuOnly.pem, cannotSign('ku-only'));
    const noCertSign = issue({ cn: 'no-certsign', ca: true, ku: 'digitalSignature' });
    await refused(issue({ cn: 'srv', issuer: noCertSign, san: ['127.0.0.1'] }), [], noCertSign.pem, cannotSign('no-certsign'));
    // A fullchain bundle: the real root beside the non-CA that signed: still refused.
    await refused(issue({ cn: 'srv', issuer: notCa, san: ['127.0.0.1'] }), [], root.pem + notCa.pem, cannotSign('not-a-ca'));
  });

  test('a CA:TRUE twin presented by the server does not lend its rights to a bundle certificate that may not sign', async () => {
    // OpenSSL looks for the issuer in the trust store first, so it verifies through the bundle's
    // certificate (keyCertSign, no basicConstraints: an anchor to OpenSSL), not the presented twin.
    // Go's answer (checked with kubectl v1.32, go1.23.8): the twin is tried as an intermediate, and
    // above it the bundle certificate is the twin itself (same subject and key), so no hint is given.
    const kuOnly = issue({ cn: 'ku-only-twin', noBasicConstraints: true, ku: 'ca', eku: 'none', keyIndex: 4 });
    const twin = issue({ cn: 'ku-only-twin', ca: true, keyIndex: 4 });
    await refused(issue({ cn: 'srv', issuer: kuOnly, san: ['127.0.0.1'] }), [twin], kuOnly.pem, `${X509}certificate signed by unknown authority`);
  });

  test('a pinned serving certificate is trusted itself, but cannot sign others', async () => {
    const pinned = issue({ cn: 'pinned', san: ['127.0.0.1'] });
    await accepted(pinned, [], pinned.pem);
    await refused(issue({ cn: 'minted', issuer: pinned, san: ['127.0.0.1'] }), [], pinned.pem, cannotSign('pinned'));
  });

  test('a non-CA intermediate (CA:FALSE, or a v1 certificate) cannot sign', async () => {
    const notCa = issue({ cn: 'int-not-ca', issuer: root, ca: false, ku: 'none', eku: 'none' });
    await refused(issue({ cn: 'srv', issuer: notCa, san: ['127.0.0.1'] }), [notCa], root.pem, cannotSign('int-not-ca'));
    const v1 = issue({ cn: 'int-v1', issuer: root, v1: true });
    await refused(issue({ cn: 'srv', issuer: v1, san: ['127.0.0.1'] }), [v1], root.pem, /^Unable to connect to the server: tls: failed to verify certificate: x509: /);
  });

  test('a version 1 root signs, as in Go', async () => {
    const v1Root = issue({ cn: 'v1-root', v1: true });
    await accepted(issue({ cn: 'srv', issuer: v1Root, san: ['127.0.0.1'] }), [], v1Root.pem);
  });

  test('a CN-only certificate whose CN matches: Go\'s legacy Common Name message', async () => {
    await refused(issue({ cn: '127.0.0.1', issuer: root }), [], root.pem, `${X509}certificate relies on legacy Common Name field, use SANs instead`);
  });

  test('a SHA-1 signature: Go\'s insecure-algorithm reason', async () => {
    await refused(
      issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'], sha1: true }),
      [],
      root.pem,
      `${X509}certificate signed by unknown authority (possibly because of "x509: cannot verify signature: insecure algorithm SHA1-RSA (temporarily override with GODEBUG=x509sha1=1)" while trying to verify candidate authority certificate "go-root")`,
    );
  });

  test('a server that answers with something other than TLS: Go\'s words for HTTP and for anything else; nothing but ClientHellos sent', async () => {
    const received: Buffer[] = [];
    const junk: NetServer = createNetServer((c) => {
      c.on('data', (b: Buffer) => received.push(b));
      c.on('error', () => undefined);
      c.write('SSH-2.0-OpenSSH_9.6\r\n');
    });
    const http = createHttpServer((_q, r) => r.end('plain'));
    servers.push({ close: () => new Promise((r) => junk.close(() => r())) }, { close: () => new Promise((r) => http.close(() => r())) });
    await new Promise<void>((r) => junk.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = (srv: NetServer) => `https://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    for (const [mode, extra] of MODES) {
      assert.deepEqual(await get(url(junk), root.pem, {}, extra), { ok: false, message: 'Unable to connect to the server: tls: first record does not look like a TLS handshake' }, mode);
      assert.deepEqual(await get(url(http as unknown as NetServer), root.pem, {}, extra), { ok: false, message: 'Unable to connect to the server: http: server gave HTTP response to HTTPS client' }, mode);
    }
    const sent = Buffer.concat(received);
    assert.ok(sent.length > 0);
    assert.equal(sent.indexOf('secret-token-must-not-leak'), -1);
  });

  test('an encrypted or mismatched client key: Go\'s words, before any connection', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const encrypted = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' },
    }).privateKey;
    const other = issue({ cn: 'other-client', issuer: root, eku: 'clientAuth', keyIndex: 1 });
    const mine = issue({ cn: 'mine', issuer: root, eku: 'clientAuth', keyIndex: 2 });
    let connections = 0;
    const counter = createNetServer((c) => {
      connections++;
      c.destroy();
    });
    servers.push({ close: () => new Promise((r) => counter.close(() => r())) });
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(counter.address() as AddressInfo).port}`;
    const certData = Buffer.from(mine.pem);
    assert.deepEqual(await get(url, root.pem, { certData, keyData: Buffer.from(encrypted) }), { ok: false, message: 'tls: failed to parse private key' });
    assert.deepEqual(await get(url, root.pem, { certData, keyData: Buffer.from(other.keyPem) }), { ok: false, message: 'tls: private key does not match public key' });
    assert.deepEqual(await get(url, root.pem, { certData, keyData: Buffer.from('garbage') }), { ok: false, message: 'tls: failed to find any PEM data in key input' });
    assert.equal(connections, 0);
  });

  test('tls-server-name set to an IP: verified against the IP SANs, and no DEP0123 warning (no IP as SNI)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.name);
    process.on('warning', onWarning);
    try {
      await accepted(issue({ cn: 'srv', issuer: root, san: ['10.9.8.7'] }), [], root.pem, { serverName: '10.9.8.7' });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
  });
});
