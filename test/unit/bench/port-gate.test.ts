/** The outage cases' port gate: forwards while open, refuses while closed, drops connections on close. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { PortGate } from '../../../bench/port-gate.js';
import { freePorts } from '../../support/real-apiserver.js';

async function echoServer(): Promise<Server> {
  const server = createServer((s) => s.pipe(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Connects to port; resolves with the socket, or with the error code (e.g. ECONNREFUSED). */
function dial(port: number): Promise<Socket | string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

async function echo(s: Socket, text: string): Promise<string> {
  s.write(text);
  const [chunk] = (await once(s, 'data')) as [Buffer];
  return chunk.toString();
}

test('the port gate forwards while open, refuses while closed, and drops open connections on close', async () => {
  const target = await echoServer();
  const [port] = await freePorts(1);
  const gate = new PortGate(port!, (target.address() as AddressInfo).port);
  try {
    assert.equal(await dial(port!), 'ECONNREFUSED');
    await gate.open();
    const s = await dial(port!);
    assert.ok(typeof s !== 'string', `connect failed: ${String(s)}`);
    assert.equal(await echo(s, 'hello'), 'hello');

    const closed = once(s, 'close');
    await gate.close();
    await closed; // the open connection is dropped, as a killed server's are
    assert.equal(await dial(port!), 'ECONNREFUSED');

    await gate.open(); // the same port again
    const again = await dial(port!);
    assert.ok(typeof again !== 'string');
    assert.equal(await echo(again, 'back'), 'back');
    again.destroy();
  } finally {
    await gate.close();
    target.close();
  }
});
