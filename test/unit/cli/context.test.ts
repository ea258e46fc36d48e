/**
 * The CLI context's close(): in a CLI process (io.exitsAfterRun) the connections are left to the
 * process's exit, as kubectl leaves them; elsewhere (main() run in-process) close() closes them.
 * Observed from the server: whether the next request comes on the same connection.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { parseArgv } from '../../../src/cli/parse.js';
import { createContext } from '../../../src/cli/context.js';
import { run } from '../../../src/cli/commands/get.js';
import { systemClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import type { IO } from '../../../src/core/io.js';

let server: LocalApiServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-cli-context-'));
  server = await startServer({ tls: true, seed: 'demo' });
  server.writeKubeconfig(join(dir, 'config'));
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The client ports of two `get namespaces` through one context, with close() between them. */
async function portsAcrossClose(exitsAfterRun: boolean | undefined): Promise<[number | undefined, number | undefined]> {
  let err = '';
  const io: IO = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env: { HOME: dir }, cwd: dir, exitsAfterRun };
  const parsed = parseArgv(['get', 'namespaces', '--kubeconfig', join(dir, 'config'), '--cache-dir', join(dir, 'cache')]);
  const ctx = createContext(parsed, io, systemClock, silentLogger);
  const listed = () => server.requestLog.filter((e) => e.path === '/api/v1/namespaces');
  server.clearLog();
  assert.equal(await run(parsed, ctx, io), 0, err);
  ctx.close();
  assert.equal(await run(parsed, ctx, io), 0, err);
  const seen = listed();
  assert.equal(seen.length, 2, 'both gets listed the namespaces');
  return [seen[0]!.remotePort, seen[1]!.remotePort];
}

test('in a CLI process, close() leaves the connection to the exit: the next request reuses it', async () => {
  const [first, second] = await portsAcrossClose(true);
  assert.ok(first !== undefined);
  assert.equal(second, first);
});

test('in-process, close() closes the connection: the next request opens another', async () => {
  const [first, second] = await portsAcrossClose(undefined);
  assert.ok(first !== undefined && second !== undefined);
  assert.notEqual(second, first);
});
