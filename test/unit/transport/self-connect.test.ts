/**
 * TCP self-connect. On Linux, a connect() to a loopback port that nothing listens on, inside the
 * ephemeral range, may get that same port as its source port: SYN to itself, simultaneous open, and
 * the connect succeeds, to the client itself. While that socket lives the port is taken and the real
 * server cannot listen on it again (EADDRINUSE): a watcher retrying through an outage (every second,
 * or in a tight loop with a virtual clock) can hit it. Go's dialer guards against it
 * (net/tcpsock_posix.go, selfConnect).
 *
 * Linux picks connect() source ports with the parity of the range's low end first (since 4.6; bind(0)
 * takes the other parity, so a server on port 0 is safe from it), stepping through the range per
 * destination: connecting to a closed port of that parity again and again reaches it within one
 * sweep of the range, a few thousand to a few tens of thousands of attempts here. The loop is bounded
 * in attempts and time; the test is skipped, saying so, where it does not happen.
 *
 * kdyn's dialer (src/transport/dial.ts) fails such a connection as refused, as Go does, and resets it
 * so that the port is free at once (a plain close leaves it in TIME_WAIT, still taken). Tested with
 * the kernel's own self-connect through the dialer, and with one made on purpose (the dialer's
 * `connect` hook binds the source port to the destination port).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { createDialer } from '../../../src/transport/dial.js';

const MAX_ATTEMPTS = 80_000;
const MAX_MS = 15_000;

/** The kernel's ephemeral port range, or undefined off Linux. */
function ephemeralRange(): [number, number] | undefined {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low && high && high > low ? [low, high] : undefined;
  } catch {
    return undefined;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free loopback port inside the ephemeral range, of the parity connect() tries first. */
async function closedEphemeralPort(): Promise<number | undefined> {
  const range = ephemeralRange();
  if (!range) return undefined;
  const [low, high] = range;
  for (let i = 0; i < 50; i++) {
    const port = low + 2 * Math.floor(Math.random() * Math.floor((high - low) / 2));
    if (await canListen(port)) return port;
  }
  return undefined;
}

/**
 * Connects to `127.0.0.1:port` (nothing listening) until a connection succeeds, with `open` (each
 * attempt's outcome awaited); bounded in attempts and time. Resolves with the connected socket and
 * the number of attempts, or undefined.
 */
async function connectUntilAccepted(
  port: number,
  open: () => Promise<Socket>,
): Promise<{ socket: Socket; attempts: number } | undefined> {
  const started = Date.now();
  for (let attempts = 1; attempts <= MAX_ATTEMPTS && Date.now() - started < MAX_MS; attempts++) {
    try {
      return { socket: await open(), attempts };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw e;
    }
  }
  return undefined;
}

function rawConnect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    s.once('error', reject);
    s.once('connect', () => resolve(s));
  });
}

test('the kernel connects a socket to itself: a closed ephemeral loopback port, connected to again and again', async (t) => {
  const port = await closedEphemeralPort();
  if (port === undefined) return t.skip('no /proc/sys/net/ipv4/ip_local_port_range (not Linux), or no free port in it');
  const got = await connectUntilAccepted(port, () => rawConnect(port));
  if (!got) return t.skip(`no self-connect in ${MAX_ATTEMPTS} attempts or ${MAX_MS / 1000}s on this kernel`);
  const { socket, attempts } = got;
  try {
    t.diagnostic(`self-connected to 127.0.0.1:${port} after ${attempts} attempts`);
    assert.equal(socket.localPort, port);
    assert.equal(socket.remotePort, port);
    assert.equal(socket.localAddress, socket.remoteAddress);
    // Here (Linux 6.x) the port is taken while it lives; the kernel decides, so only reported.
    t.diagnostic(`listening on ${port} while self-connected: ${(await canListen(port)) ? 'possible' : 'EADDRINUSE'}`);
  } finally {
    socket.resetAndDestroy();
  }
});

/** A dial's outcome: the error code it failed with, and whether its TCP socket had connected. */
async function dialOnce(url: string, port: number, connectOpts: { localPort?: number } = {}): Promise<{ code: string | undefined; connected: boolean; socket: Socket }> {
  let socket: Socket | undefined;
  let connected = false;
  const dialer = createDialer(url, { insecure: false }, {
    connect: (h, p) => {
      socket = connect({ host: h, port: p, ...(connectOpts.localPort ? { localAddress: '127.0.0.1', localPort: connectOpts.localPort } : {}) });
      socket.once('connect', () => (connected = true));
      return socket;
    },
  });
  try {
    const s = await dialer.dial();
    s.destroy();
    return { code: undefined, connected, socket: socket! };
  } catch (e) {
    return { code: (e as NodeJS.ErrnoException).code, connected, socket: socket! };
  }
}

test('the dialer: a connection the kernel made to itself fails as refused, and the port is free at once', async (t) => {
  const port = await closedEphemeralPort();
  if (port === undefined) return t.skip('no /proc/sys/net/ipv4/ip_local_port_range (not Linux), or no free port in it');
  const codes = new Map<string, number>();
  let self: Awaited<ReturnType<typeof dialOnce>> | undefined;
  const started = Date.now();
  for (let i = 0; i < MAX_ATTEMPTS && Date.now() - started < MAX_MS && !self; i++) {
    const r = await dialOnce(`http://127.0.0.1:${port}`, port);
    codes.set(String(r.code), (codes.get(String(r.code)) ?? 0) + 1);
    if (r.connected) self = r;
  }
  assert.deepEqual([...codes.keys()], ['ECONNREFUSED'], 'every dial is refused, the one connected to itself too');
  if (!self) return t.skip(`no self-connect in ${codes.get('ECONNREFUSED')} dials or ${MAX_MS / 1000}s on this kernel`);
  t.diagnostic(`self-connected to 127.0.0.1:${port} after ${codes.get('ECONNREFUSED')} dials`);
  assert.equal(self.socket.destroyed, true);
  assert.equal(await canListen(port), true, 'the server can listen on its port again at once');
});

for (const scheme of ['http', 'https']) {
  test(`the dialer (${scheme}): a socket connected to itself on purpose fails as refused, before anything is written`, async (t) => {
    const port = await closedEphemeralPort();
    if (port === undefined) return t.skip('no /proc/sys/net/ipv4/ip_local_port_range (not Linux), or no free port in it');
    const r = await dialOnce(`${scheme}://127.0.0.1:${port}`, port, { localPort: port });
    if (!r.connected) return t.skip(`this system did not connect 127.0.0.1:${port} to itself (${r.code})`);
    assert.equal(r.code, 'ECONNREFUSED');
    assert.equal(r.socket.destroyed, true);
    assert.equal(r.socket.bytesWritten, 0, 'no request (no ClientHello) went out on it');
    assert.equal(await canListen(port), true);
  });
}
