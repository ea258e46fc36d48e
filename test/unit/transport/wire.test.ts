/**
 * The HTTP/1.1 exchange (src/transport/wire.ts) and the connection pool (src/transport/pool.ts)
 * against scripted TCP servers: every response framing, split at every byte boundary, interim
 * responses, malformed responses, header checks, keep-alive reuse and backpressure.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import { exchange, type WireRequest, type WireResponse } from '../../../src/transport/wire.js';
import { ConnectionPool } from '../../../src/transport/pool.js';
import type { Dialer } from '../../../src/transport/dial.js';

interface Scripted {
  port: number;
  /** Raw request bytes received, per connection. */
  received: string[];
  connections(): number;
  stop(): Promise<void>;
}

/** A TCP server that answers each connection's requests with `reply(requestIndex, socket)`. */
async function scripted(reply: (n: number, s: Socket, request: string) => void): Promise<Scripted> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let n = 0;
  const server: Server = createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    const idx = received.push('') - 1;
    let pending = '';
    s.on('data', (d) => {
      received[idx] += d.toString('latin1');
      pending += d.toString('latin1');
      // One reply per complete request head (bodies in these tests are sent with the head).
      let end;
      while ((end = pending.indexOf('\r\n\r\n')) >= 0) {
        const req = pending.slice(0, end + 4);
        const len = Number(/content-length: (\d+)/i.exec(req)?.[1] ?? 0);
        if (pending.length < end + 4 + len) return;
        pending = pending.slice(end + 4 + len);
        reply(n++, s, req);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  servers.push(stop);
  return { port, received, connections: () => connections, stop };
}

const servers: Array<() => Promise<void>> = [];
after(async () => {
  for (const s of servers) await s();
});

const dial = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

const GET: WireRequest = { method: 'GET', target: '/x', headers: { Host: 'k' } };

async function body(res: WireResponse): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of res) parts.push(c as Buffer);
  return Buffer.concat(parts).toString();
}

/** Sends `bytes` one slice at a time (every split point of the framing is exercised). */
function dribble(s: Socket, bytes: string, size: number): void {
  const b = Buffer.from(bytes);
  for (let i = 0; i < b.length; i += size) s.write(b.subarray(i, i + size));
}

describe('response framing', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world', 'hello world', true],
    ['chunked with extensions and trailers', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n', 'hello world', true],
    ['no body: 204', 'HTTP/1.1 204 No Content\r\n\r\n', '', true],
    ['Content-Length: 0', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', '', true],
    ['100 Continue before the response', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok', 'ok', true],
    ['Connection: close', 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', 'ok', false],
    ['HTTP/1.0 without keep-alive', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', 'ok', false],
  ];
  for (const [name, raw, want, reusable] of cases) {
    test(`${name}: whole, and split at every byte`, async () => {
      for (const size of [raw.length, 1, 3]) {
        const srv = await scripted((_n, s) => dribble(s, raw, size));
        const sock = await dial(srv.port);
        let kept: boolean | undefined;
        const res = await exchange(sock, GET, (r) => (kept = r));
        assert.equal(await body(res), want, `split ${size}`);
        assert.equal(res.complete, true);
        assert.equal(kept, reusable, `reusable, split ${size}`);
        assert.equal(sock.destroyed, !reusable);
        sock.destroy();
      }
    });
  }

  test('a body delimited by the end of the connection', async () => {
    const srv = await scripted((_n, s) => s.end('HTTP/1.1 200 OK\r\n\r\nuntil the end'));
    const sock = await dial(srv.port);
    let kept: boolean | undefined;
    const res = await exchange(sock, GET, (r) => (kept = r));
    assert.equal(await body(res), 'until the end');
    assert.equal(kept, false);
  });

  test('headers: lower-cased, repeated ones joined, Set-Cookie kept as a list', async () => {
    const raw = 'HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n';
    const srv = await scripted((_n, s) => s.write(raw));
    const res = await exchange(await dial(srv.port), GET, () => undefined);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-a'], '1, 2');
    assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
  });
});

describe('malformed and cut-off responses', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['not HTTP at all', 'SSH-2.0-OpenSSH_9.6\r\n', /HPE_INVALID_CONSTANT/],
    ['a bad status line', 'HTTP/1.1 OK\r\n\r\n', /HPE_INVALID_CONSTANT/],
    ['a bad header name', 'HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n', /HPE_INVALID_HEADER_TOKEN/],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /HPE_INVALID_CHUNK_SIZE/],
    ['conflicting Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', /HPE_UNEXPECTED_CONTENT_LENGTH/],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /HPE_INVALID_CONTENT_LENGTH/],
  ];
  for (const [name, raw, code] of bad) {
    test(name, async () => {
      const srv = await scripted((_n, s) => s.write(raw));
      const sock = await dial(srv.port);
      let kept: boolean | undefined;
      await assert.rejects(
        (async () => body(await exchange(sock, GET, (r) => (kept = r))))(),
        (e: NodeJS.ErrnoException) => code.test(String(e.code)),
      );
      assert.equal(kept, false);
      assert.equal(sock.destroyed, true);
    });
  }

  test('closed before any response: "socket hang up" (ECONNRESET, retriable)', async () => {
    const srv = await scripted((_n, s) => s.destroy());
    await assert.rejects(exchange(await dial(srv.port), GET, () => undefined), { code: 'ECONNRESET', message: 'socket hang up' });
  });

  test('closed mid-body: the body stream fails as truncated', async () => {
    const srv = await scripted((_n, s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'));
    const res = await exchange(await dial(srv.port), GET, () => undefined);
    await assert.rejects(body(res), { code: 'ERR_TRUNCATED_RESPONSE' });
    assert.equal(res.complete, false);
  });

  test('bytes past the framed end: the connection is not reused', async () => {
    const srv = await scripted((_n, s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA'));
    let kept: boolean | undefined;
    const res = await exchange(await dial(srv.port), GET, (r) => (kept = r));
    assert.equal(await body(res), 'ok');
    assert.equal(kept, false);
  });
});

describe('request', () => {
  test('written in one piece: request line, headers, body', async () => {
    const srv = await scripted((_n, s) => s.write('HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n'));
    const sock = await dial(srv.port);
    const res = await exchange(sock, { method: 'POST', target: '/api/v1/namespaces?x=1', headers: { Host: 'k:1', 'Content-Length': 4, 'X-Multi': ['a', 'b'] }, body: 'data' }, () => undefined);
    assert.equal(res.statusCode, 201);
    assert.equal(srv.received[0], 'POST /api/v1/namespaces?x=1 HTTP/1.1\r\nHost: k:1\r\nContent-Length: 4\r\nX-Multi: a\r\nX-Multi: b\r\n\r\ndata');
    sock.destroy();
  });

  test('a header value with CR/LF is refused without sending anything or echoing the value', async () => {
    const srv = await scripted(() => undefined);
    const sock = await dial(srv.port);
    await assert.rejects(exchange(sock, { ...GET, headers: { Authorization: 'Bearer secret\r\nX-Evil: 1' } }, () => undefined), (e: Error) => {
      assert.equal((e as NodeJS.ErrnoException).code, 'ERR_INVALID_CHAR');
      assert.doesNotMatch(e.message, /secret/);
      return true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(srv.received[0], '');
  });
});

describe('backpressure', () => {
  test('an idle reader stops the socket reading; the whole body still arrives in order', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const n = 64; // 4 MiB, far above the stream's high-water mark
    const srv = await scripted((_n, s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${chunk.length * n}\r\n\r\n`);
      for (let i = 0; i < n; i++) s.write(chunk);
    });
    const sock = await dial(srv.port);
    const res = await exchange(sock, GET, () => undefined);
    // Nobody reads for a while (event-loop turns, no timers): without backpressure Node would
    // keep reading the 4 MiB off the socket into the stream's buffer.
    for (let i = 0; i < 2000 && sock.bytesRead < chunk.length * n; i++) await new Promise((r) => setImmediate(r));
    assert.ok(sock.bytesRead < 1024 * 1024, `reading stopped early, read ${sock.bytesRead} bytes`);
    let total = 0;
    for await (const c of res) total += (c as Buffer).length;
    assert.equal(total, chunk.length * n);
    sock.destroy();
  });

  test('abandoning a body mid-way closes the connection (it cannot be reused)', async () => {
    const srv = await scripted((_n, s) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n'));
    const sock = await dial(srv.port);
    let kept: boolean | undefined;
    const res = await exchange(sock, GET, (r) => (kept = r));
    for await (const _ of res) break;
    assert.equal(sock.destroyed, true);
    assert.equal(kept, false);
  });
});

describe('ConnectionPool', () => {
  const ok = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
  const dialer = (port: number, count: { n: number }): Dialer => ({
    verification: 'none',
    dial: () => {
      count.n++;
      return dial(port);
    },
  });

  test('reuses a kept connection; a closed one is replaced', async () => {
    const srv = await scripted((_n, s) => s.write(ok));
    const count = { n: 0 };
    const pool = new ConnectionPool(dialer(srv.port, count));
    for (let i = 0; i < 3; i++) {
      const s = await pool.acquire();
      const res = await exchange(s, GET, (r) => pool.release(s, r));
      assert.equal(await body(res), 'ok');
    }
    assert.equal(count.n, 1);
    assert.equal(srv.connections(), 1);
    // The server drops the idle connection: the next acquire dials again.
    const idle = await pool.acquire();
    pool.release(idle, true);
    idle.destroy();
    await new Promise((r) => setImmediate(r));
    const s = await pool.acquire();
    assert.notEqual(s, idle);
    assert.equal(count.n, 2);
    pool.close();
  });

  test('preconnect: the first request uses the connection opened ahead of it', async () => {
    const srv = await scripted((_n, s) => s.write(ok));
    const count = { n: 0 };
    const pool = new ConnectionPool(dialer(srv.port, count));
    pool.preconnect();
    pool.preconnect(); // one at a time
    assert.equal(count.n, 1);
    const s = await pool.acquire();
    assert.equal(await body(await exchange(s, GET, (r) => pool.release(s, r))), 'ok');
    assert.equal(count.n, 1);
    assert.equal(srv.connections(), 1);
    pool.close();
  });

  test('preconnect to a refused port: the error reaches the request, nothing is thrown before', async () => {
    const srv = await scripted(() => undefined);
    await srv.stop();
    const pool = new ConnectionPool(dialer(srv.port, { n: 0 }));
    pool.preconnect();
    await assert.rejects(pool.acquire(), { code: 'ECONNREFUSED' });
    pool.close();
  });

  test('close() destroys idle and busy connections; acquire after close fails', async () => {
    const srv = await scripted((_n, s) => s.write(ok));
    const pool = new ConnectionPool(dialer(srv.port, { n: 0 }));
    const a = await pool.acquire();
    const b = await pool.acquire();
    pool.release(b, true);
    pool.close();
    assert.equal(a.destroyed, true);
    assert.equal(b.destroyed, true);
    await assert.rejects(pool.acquire(), { code: 'ERR_KDYN_POOL_CLOSED' });
  });
});
