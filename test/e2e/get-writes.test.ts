/**
 * `get`'s run() in process with in-memory IO against the local server: output goes out in big
 * chunks (one write per page for streaming formats, one for a table), never per line, and the
 * exit code and stderr of a partial failure.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { parseArgv } from '../../src/cli/parse.js';
import { createContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/commands/get.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { IO } from '../../src/core/io.js';

let server: LocalApiServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-get-writes-'));
  server = await startServer({ tls: true, seed: 'demo', configmaps: 10, namespace: 'many' });
  server.writeKubeconfig(join(dir, 'config'));
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function get(args: string[]) {
  const writes: string[] = [];
  let err = '';
  const io: IO = { stdout: { write: (s: string) => writes.push(s) }, stderr: { write: (s: string) => (err += s) }, env: { HOME: dir }, cwd: dir };
  const parsed = parseArgv(['get', ...args, '--kubeconfig', join(dir, 'config'), '--cache-dir', join(dir, 'cache')]);
  const ctx = createContext(parsed, io, systemClock, silentLogger);
  try {
    const code = await run(parsed, ctx, io);
    return { code, writes, err };
  } finally {
    ctx.close();
  }
}

test('-o name and -o jsonl: one write per page', async () => {
  for (const o of ['name', 'jsonl', 'json']) {
    const r = await get(['configmaps', '-n', 'many', '-o', o, '--chunk-size', '4']);
    assert.equal(r.code, 0, r.err);
    const pages = 3; // 10 objects in pages of 4
    assert.equal(r.writes.length, o === 'json' ? pages + 1 : pages, `${o}: ${r.writes.length} writes`);
    if (o !== 'json') assert.equal(r.writes.join('').trimEnd().split('\n').length, 10);
  }
});

test('a table is written once, after every page', async () => {
  const r = await get(['configmaps', '-n', 'many', '--chunk-size', '3']);
  assert.equal(r.code, 0);
  assert.equal(r.writes.length, 1);
  assert.equal(r.writes[0]!.split('\n').length, 12); // header + 10 rows + ''
});

test('partial NotFound: found objects printed, each error reported, exit 1', async () => {
  const r = await get(['cm', 'app-config', 'nope', '-n', 'demo', '-o', 'name']);
  assert.equal(r.code, 1);
  assert.equal(r.writes.join(''), 'configmap/app-config\n');
  assert.equal(r.err, 'Error from server (NotFound): configmaps "nope" not found\n');
});
