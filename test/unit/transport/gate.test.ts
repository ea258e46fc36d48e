/**
 * The client-flight gate (src/transport/gate.ts) over a real TCP connection: ClientHello records pass,
 * the rest is held until open(), and what was held leaves in one write (with TCP_NODELAY each write
 * is a segment of its own: the held flight in two writes cost the server an extra read).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { ClientFlightGate } from '../../../src/transport/gate.js';

/** Records the size of each write asked of a real TCP socket (net.Socket keeps `write` on the instance). */
function countWrites(tcp: Socket): number[] {
  const writes: number[] = [];
  const write = tcp.write;
  tcp.write = function (this: Socket, ...args: Parameters<Socket['write']>): boolean {
    const chunk = args[0];
    writes.push(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
    return write.apply(this, args);
  } as Socket['write'];
  return writes;
}

/** A TLS record of `type` holding `body`. */
function record(type: number, body: Buffer): Buffer {
  const header = Buffer.from([type, 3, 3, 0, 0]);
  header.writeUInt16BE(body.length, 3);
  return Buffer.concat([header, body]);
}

test('the gate passes the ClientHello, holds the rest, and sends what it held in one write', async () => {
  const received: Buffer[] = [];
  const server = createServer((s) => s.on('data', (b) => received.push(b)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const tcp = new Socket().connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(tcp, 'connect');
  const writes = countWrites(tcp);
  try {
    const gate = new ClientFlightGate(tcp);
    const hello = record(22, Buffer.from([1, 0, 0, 1, 0]));
    const flight = [record(22, Buffer.from([11, 0, 0, 2, 7, 7])), record(23, Buffer.alloc(300, 9))];
    const write = (b: Buffer) => new Promise<void>((resolve, reject) => gate.write(b, (e) => (e ? reject(e) : resolve())));
    await write(hello);
    for (const b of flight) await write(b);
    assert.deepEqual(writes, [hello.length], 'only the ClientHello left');
    assert.equal(gate.heldBytes, flight[0]!.length + flight[1]!.length);
    gate.open();
    assert.deepEqual(writes, [hello.length, flight[0]!.length + flight[1]!.length], 'the held flight in one write');
    const all = Buffer.concat([hello, ...flight]);
    while (Buffer.concat(received).length < all.length) await new Promise((r) => setImmediate(r));
    assert.deepEqual(Buffer.concat(received), all, 'every byte, in order');
    gate.destroy();
  } finally {
    tcp.destroy();
    server.close();
  }
});
