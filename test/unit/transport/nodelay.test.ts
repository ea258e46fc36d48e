/**
 * Every TCP connection the dialer opens gets TCP_NODELAY, as Go sets on every connection. Without
 * it, a small write that follows another unacknowledged one (the request after the client
 * certificate flight the gate held, a request split in two writes) waits for the server's delayed
 * ACK: 40 ms a request on a real kube-apiserver. The dialer's `connect` hook hands it real sockets
 * that remember what was asked of them; each test then carries a request over the dialed socket.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { createDialer } from '../../../src/transport/dial.js';
import type { TLSConfig } from '../../../src/kubeconfig/types.js';
import { issue, loadKeys, type Issued } from './certs.js';
import { startProxy } from './helpers.js';

/** A real TCP socket that records the no-delay setting asked of it. */
class RecordingSocket extends Socket {
  noDelay = false;
  port = 0;

  override setNoDelay(noDelay = true): this {
    this.noDelay = noDelay;
    return super.setNoDelay(noDelay);
  }
}

function recordingConnect(): { connect: (host: string, port: number) => Socket; opened: RecordingSocket[] } {
  const opened: RecordingSocket[] = [];
  const connect = (host: string, port: number): Socket => {
    const s = new RecordingSocket();
    s.port = port;
    opened.push(s);
    return s.connect(port, host);
  };
  return { connect, opened };
}

/** Sends one request over a dialed socket; resolves with the response's status line. */
function statusLine(s: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    s.on('data', (b: Buffer) => (got += b.toString('latin1')));
    s.on('end', () => resolve(got.split('\r\n')[0]!));
    s.on('error', reject);
    s.write('GET /version HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
  });
}

function listening(server: HttpServer | HttpsServer): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
}

describe('TCP_NODELAY on every connection the dialer opens', () => {
  let root: Issued;
  let client: Issued;
  let https: HttpsServer;
  let http: HttpServer;
  let httpsPort: number;
  let httpPort: number;
  const answer = (_req: unknown, res: { end(body: string): void }) => res.end('{}');

  before(async () => {
    await loadKeys(3);
    root = issue({ cn: 'nodelay-root', ca: true });
    client = issue({ cn: 'admin', issuer: root, eku: 'clientAuth' });
    const leaf = issue({ cn: 'srv', issuer: root, san: ['127.0.0.1'] });
    https = createHttpsServer({ cert: leaf.pem, key: leaf.keyPem, requestCert: true, rejectUnauthorized: false }, answer);
    http = createHttpServer(answer);
    [httpsPort, httpPort] = await Promise.all([listening(https), listening(http)]);
  });
  after(() => {
    for (const s of [https, http]) {
      s.closeAllConnections();
      s.close();
    }
  });

  const tls = (): TLSConfig => ({ caData: Buffer.from(root.pem), insecure: false });

  test('plain http', async () => {
    const { connect, opened } = recordingConnect();
    const s = await createDialer(`http://127.0.0.1:${httpPort}`, { insecure: false }, { connect }).dial();
    assert.equal(await statusLine(s), 'HTTP/1.1 200 OK');
    assert.deepEqual(opened.map((o) => o.noDelay), [true]);
  });

  test('https with a token (TLS on the TCP socket)', async () => {
    const { connect, opened } = recordingConnect();
    const s = await createDialer(`https://127.0.0.1:${httpsPort}`, tls(), { connect }).dial();
    assert.equal(await statusLine(s), 'HTTP/1.1 200 OK');
    assert.deepEqual(opened.map((o) => o.noDelay), [true]);
  });

  test('https with a client certificate (TLS over the gate, a JS stream: set on the TCP socket under it)', async () => {
    const { connect, opened } = recordingConnect();
    const s = await createDialer(`https://127.0.0.1:${httpsPort}`, { ...tls(), certData: Buffer.from(client.pem), keyData: Buffer.from(client.keyPem) }, { connect }).dial();
    assert.notEqual(s, opened[0], 'the TLS socket runs over the gate, not on the TCP socket');
    assert.equal(await statusLine(s), 'HTTP/1.1 200 OK');
    assert.deepEqual(opened.map((o) => o.noDelay), [true]);
  });

  test('https through an http proxy (the CONNECT tunnel\'s socket)', async () => {
    const proxy = await startProxy(httpsPort);
    try {
      const { connect, opened } = recordingConnect();
      const dialer = createDialer('https://127.0.0.1:6443', tls(), { connect, proxy: { url: new URL(proxy.url), source: 'proxy-url' } });
      const s = await dialer.dial();
      assert.equal(await statusLine(s), 'HTTP/1.1 200 OK');
      assert.deepEqual(proxy.tunnels, ['127.0.0.1:6443']);
      assert.deepEqual(opened.map((o) => [o.port, o.noDelay]), [[proxy.port, true]]);
    } finally {
      await proxy.stop();
    }
  });
});
