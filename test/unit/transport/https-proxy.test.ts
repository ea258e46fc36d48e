/**
 * An https proxy (`proxy-url: https://...` or HTTPS_PROXY) is verified against Node's default roots
 * plus NODE_EXTRA_CA_CERTS, by the address it is given, as net/http verifies it: an http server behind
 * it, and an https server through its CONNECT tunnel. Each case runs in a process of its own
 * (https-proxy-child.ts), since NODE_EXTRA_CA_CERTS is read when Node starts.
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

const CHILD = fileURLToPath(new URL('./https-proxy-child.js', import.meta.url));

interface Outcome {
  ok: boolean;
  error?: string;
}

function child(ask: object, env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, JSON.stringify(ask)], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (e, out, err) => {
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

describe('an https proxy', () => {
  let root: Issued;
  let server: TestServer;
  let plain: Server;
  let plainUrl: string;
  let proxy: { url: string; close(): Promise<void> };
  let dir: string;
  let rootFile: string;

  before(async () => {
    await loadKeys(2);
    root = issue({ cn: 'proxy-root', ca: true });
    server = await serve(issue({ cn: 'server', issuer: root, san: ['127.0.0.1'] }));
    plain = createNetServer((s) => s.end());
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    plainUrl = `http://127.0.0.1:${(plain.address() as { port: number }).port}`;
    // A certificate for the proxy's IP address only: Node checked the name `localhost` before (an IP is sent no SNI).
    proxy = await httpsProxy(issue({ cn: 'proxy', issuer: root, san: ['127.0.0.1'] }));
    dir = mkdtempSync(join(tmpdir(), 'kdyn-https-proxy-'));
    rootFile = join(dir, 'root.pem');
    writeFileSync(rootFile, root.pem);
  });
  after(async () => {
    await server.close();
    await proxy.close();
    await new Promise((r) => plain.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  test('given by IP address: verified against that address, an http server behind it', async () => {
    const r = await child({ server: plainUrl, proxy: proxy.url }, { NODE_EXTRA_CA_CERTS: rootFile });
    assert.deepEqual(r, { ok: true });
  });

  test('an https server through its CONNECT tunnel: the proxy and the server each verified', async () => {
    const r = await child({ server: server.url, caPem: root.pem, proxy: proxy.url }, { NODE_EXTRA_CA_CERTS: rootFile });
    assert.deepEqual(r, { ok: true });
  });

  test("a proxy whose CA is not among Node's roots is refused, in front of an http or an https server", async () => {
    const behindPlain = await child({ server: plainUrl, proxy: proxy.url });
    assert.equal(behindPlain.ok, false);
    assert.match(behindPlain.error ?? '', /certificate|verify|issuer/i);
    const tunnel = await child({ server: server.url, caPem: root.pem, proxy: proxy.url });
    assert.equal(tunnel.ok, false);
    assert.match(tunnel.error ?? '', /proxyconnect|certificate|verify/i);
  });
});
