/**
 * The CLI owns its process's TLS defaults (src/transport/process-roots.ts): Node's default CA list is
 * emptied before the first TLS context, so loading a kubeconfig CA no longer makes Node parse its
 * bundled roots, and every connection that relied on those roots gets them explicitly. Each case runs
 * in a process of its own (process-roots-child.ts), since the default is per process.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, connect as netConnect, type Server } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issue, loadKeys, type Issued } from './certs.js';
import { serve, type TestServer } from './tls-server.js';

const CHILD = fileURLToPath(new URL('./process-roots-child.js', import.meta.url));

interface Outcome {
  ok: boolean;
  error?: string;
  released: boolean;
  defaults: number;
}

function child(ask: object, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeArgs, CHILD, JSON.stringify(ask)], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (e, out, err) => {
      if (e) return reject(new Error(`${e.message}\n${err}`));
      resolve(JSON.parse(out) as Outcome);
    });
  });
}

/** An https proxy: TLS with `leaf`, then CONNECT host:port, answered 200 and piped. */
async function httpsProxy(leaf: Issued): Promise<{ url: string; close(): Promise<void> }> {
  const server = createTlsServer({ cert: leaf.pem, key: leaf.keyPem }, (s: TLSSocket) => {
    s.once('data', (head: Buffer) => {
      const m = /^CONNECT ([^ :]+):(\d+) /.exec(head.toString('latin1'));
      if (!m) return s.destroy();
      const up = netConnect(Number(m[2]), m[1]!, () => {
        s.write('HTTP/1.1 200 Connection established\r\n\r\n');
        s.pipe(up).pipe(s);
      });
      up.on('error', () => s.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `https://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe("the CLI's process roots", () => {
  let root: Issued;
  let other: Issued;
  let server: TestServer;
  let plain: Server;
  let plainUrl: string;
  let dir: string;
  let rootFile: string;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    await loadKeys(2);
    root = issue({ cn: 'roots-root', ca: true });
    other = issue({ cn: 'roots-other', ca: true });
    server = await serve(issue({ cn: 'server', issuer: root, san: ['127.0.0.1'] }));
    plain = createNetServer((s) => s.end());
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    plainUrl = `http://127.0.0.1:${(plain.address() as { port: number }).port}`;
    dir = mkdtempSync(join(tmpdir(), 'kdyn-roots-'));
    rootFile = join(dir, 'root.pem');
    writeFileSync(rootFile, root.pem);
  });
  after(async () => {
    await server.close();
    await new Promise((r) => plain.close(r));
    for (const c of closers) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  test('owned: the default list is emptied, and a kubeconfig CA still verifies the server', async () => {
    const r = await child({ own: true, server: server.url, caPem: root.pem });
    assert.deepEqual(r, { ok: true, released: true, defaults: 0 });
  });

  test('not owned (a library user\'s program): Node\'s defaults are left alone', async () => {
    const r = await child({ own: false, server: server.url, caPem: root.pem });
    assert.equal(r.ok, true);
    assert.equal(r.released, false);
    assert.ok(r.defaults > 50, `Node's bundled roots still the default (${r.defaults})`);
  });

  test('owned, a kubeconfig CA that did not sign the server: refused', async () => {
    const r = await child({ own: true, server: server.url, caPem: other.pem });
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', /unknown authority/);
  });

  test('owned, no CA in the kubeconfig: Node\'s roots and NODE_EXTRA_CA_CERTS are given explicitly', async () => {
    const r = await child({ own: true, server: server.url }, { NODE_EXTRA_CA_CERTS: rootFile });
    assert.deepEqual(r, { ok: true, released: true, defaults: 0 });
    const without = await child({ own: true, server: server.url });
    assert.equal(without.ok, false, 'the test CA is no bundled root');
    assert.match(without.error ?? '', /unknown authority/);
  });

  test('owned: an https proxy is still verified against Node\'s roots and NODE_EXTRA_CA_CERTS', async () => {
    const proxy = await httpsProxy(issue({ cn: 'proxy', issuer: root, san: ['127.0.0.1'] }));
    closers.push(proxy.close);
    const r = await child({ own: true, server: plainUrl, proxy: proxy.url }, { NODE_EXTRA_CA_CERTS: rootFile });
    assert.equal(r.ok, true, r.error);
    const tunnel = await child({ own: true, server: server.url, caPem: root.pem, proxy: proxy.url }, { NODE_EXTRA_CA_CERTS: rootFile });
    assert.equal(tunnel.ok, true, `an https server through the https proxy: ${tunnel.error}`);
    const untrusted = await child({ own: true, server: plainUrl, proxy: proxy.url });
    assert.equal(untrusted.ok, false);
    const untrustedTunnel = await child({ own: true, server: server.url, caPem: root.pem, proxy: proxy.url });
    assert.equal(untrustedTunnel.ok, false);
    assert.match(untrustedTunnel.error ?? '', /proxyconnect|certificate|verify/i);
  });

  test('Node told to use another store (--use-openssl-ca, --use-system-ca, NODE_USE_SYSTEM_CA=1): the default is left alone', async () => {
    const r = await child({ own: true, server: server.url, caPem: root.pem }, {}, ['--use-openssl-ca']);
    assert.equal(r.ok, true);
    assert.equal(r.released, false);
    const viaEnv = await child({ own: true, server: server.url, caPem: root.pem }, { NODE_OPTIONS: '--use-system-ca' });
    assert.equal(viaEnv.released, false);
    const systemCa = await child({ own: true, server: server.url, caPem: root.pem }, { NODE_USE_SYSTEM_CA: '1' });
    assert.equal(systemCa.released, false);
    assert.equal(systemCa.ok, true);
  });
});
