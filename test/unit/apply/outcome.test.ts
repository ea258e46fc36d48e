/**
 * Which failed writes have an unknown outcome (issue 35, src/apply/outcome.ts), over real sockets to
 * servers that misbehave on purpose: a connection closed after the request was read (it may have
 * been committed: unknown), one reset during the TLS handshake and one refused (the request never
 * left: failed).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../../src/connect.js';
import { ConnectionError } from '../../../src/core/errors.js';
import { sentWithoutAnswer } from '../../../src/apply/outcome.js';
import { freePort } from '../../support/fleet-env.js';

const dir = mkdtempSync(join(tmpdir(), 'kdyn-outcome-'));
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A TCP server doing `onSocket` with each connection. */
async function tcpServer(onSocket: (s: Socket) => void): Promise<number> {
  const s = createServer(onSocket);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as { port: number }).port;
}

/** The error of one PATCH to `server`. */
async function patchError(server: string): Promise<unknown> {
  const kubeconfig = join(dir, `kubeconfig-${servers.length}-${server.replace(/\W/g, '')}`);
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  const k = await connect({ kubeconfig, env: { HOME: dir } });
  try {
    await k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('d').patch('x', { data: { k: 'v' } }, 'apply', { fieldManager: 't' });
    assert.fail('the PATCH succeeded');
  } catch (e) {
    return e;
  } finally {
    k.close();
  }
}

test('closed after the request was read (EOF before the response): outcome unknown', async () => {
  const port = await tcpServer((s) => s.once('data', () => s.destroy()));
  const e = await patchError(`http://127.0.0.1:${port}`);
  assert.ok(e instanceof ConnectionError, String(e));
  assert.match(e.message, /EOF|closed/);
  assert.equal(e.notSent, undefined);
  assert.equal(sentWithoutAnswer(e), true);
});

test('reset during the TLS handshake: never sent, so failed', async () => {
  const port = await tcpServer((s) => s.destroy());
  const e = await patchError(`https://127.0.0.1:${port}`);
  assert.ok(e instanceof ConnectionError, String(e));
  assert.equal(e.notSent, true);
  assert.equal(sentWithoutAnswer(e), false);
});

test('refused: never sent, so failed', async () => {
  const e = await patchError(`https://127.0.0.1:${await freePort()}`);
  assert.ok(e instanceof ConnectionError, String(e));
  assert.equal(e.code, 'ECONNREFUSED');
  assert.equal(sentWithoutAnswer(e), false);
});
