/**
 * The explanation kept per question (src/openapi/v3.ts `kept`, src/explain/index.ts): a warm run
 * reads the text kept for the document's hash and makes nothing; a new hash in the index makes it
 * anew, so it is never staler than the document; a question that fails keeps nothing. A server on a
 * real socket serves the index and one document whose hash the test changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildKubeconfig } from '../../support/apiserver/kubeconfig.js';
import { connect } from '../../../src/connect.js';
import { createOpenApiV3 } from '../../../src/openapi/v3.js';
import { questionName } from '../../../src/explain/index.js';
import { systemClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';

const KEY = 'apis/x.dev/v1';

interface Served {
  setHash(h: string): void;
  documentRequests(): number;
  /** A new OpenAPI client, as one kdyn run has. */
  openapi(): ReturnType<typeof createOpenApiV3>;
}

/** `hashed` false: the index names the document without a `?hash=`. */
async function withServer(fn: (s: Served) => Promise<void>, hashed = true): Promise<void> {
  let hash = 'AAA';
  const documentUrl = () => (hashed ? `/openapi/v3/${KEY}?hash=${hash}` : `/openapi/v3/${KEY}`);
  let documentRequests = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://server');
    if (url.pathname === '/openapi/v3') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ paths: { [KEY]: { serverRelativeURL: documentUrl() } } }));
    }
    if (`${url.pathname}${url.searchParams.has('hash') ? `?hash=${url.searchParams.get('hash')}` : ''}` === documentUrl()) {
      documentRequests++;
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ openapi: '3.0.0', info: { description: `document ${hash}` } }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-kept-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, buildKubeconfig({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' }));
    const conn = await connect({ kubeconfig, env: { HOME: dir }, cacheDir: join(dir, 'cache') });
    try {
      await fn({
        setHash: (h) => (hash = h),
        documentRequests: () => documentRequests,
        openapi: () => createOpenApiV3({ transport: conn.transport, server: conn.config.server, cacheDir: join(dir, 'cache'), env: {}, clock: systemClock, logger: silentLogger }),
      });
    } finally {
      conn.close();
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a kept text is read while the index names the same hash, and made anew from the new document when it does not', async () => {
  await withServer(async (s) => {
    let made = 0;
    const run = () => {
      const o = s.openapi();
      return o.kept('x.dev/v1', 'explain-things.q-1', async () => {
        made++;
        const doc = await o.groupVersion('x.dev/v1');
        return `made from ${String((doc.info as { description: string }).description)}\n`;
      });
    };
    assert.equal(await run(), 'made from document AAA\n');
    assert.equal(await run(), 'made from document AAA\n');
    assert.equal(made, 1, 'the second run reads the kept text');
    assert.equal(s.documentRequests(), 1);
    s.setHash('BBB'); // the document changed on the server
    assert.equal(await run(), 'made from document BBB\n');
    assert.equal(made, 2);
    assert.equal(await run(), 'made from document BBB\n');
    assert.equal(made, 2);
  });
});

test('a make that fails or gives nothing keeps nothing: the next run makes it again', async () => {
  await withServer(async (s) => {
    const o = s.openapi();
    await assert.rejects(o.kept('x.dev/v1', 'explain-things.q-2', async () => Promise.reject(new Error('field "x" does not exist'))), /field "x" does not exist/);
    assert.equal(await o.kept('x.dev/v1', 'explain-things.q-3', async () => undefined), undefined);
    let made = 0;
    assert.equal(await s.openapi().kept('x.dev/v1', 'explain-things.q-2', async () => `now ${++made}`), 'now 1');
    assert.equal(await s.openapi().kept('x.dev/v1', 'explain-things.q-3', async () => `now ${++made}`), 'now 2');
    await assert.rejects(o.kept('x.dev/v1', '../escape', async () => 'x'), /invalid derived name/);
  });
});

test('questions have names of their own: the field path and --recursive tell them apart', () => {
  const names = [questionName([], false), questionName([], true), questionName(['spec'], false), questionName(['spec', 'containers'], false), questionName(['spec.containers'], false)];
  assert.equal(new Set(names).size, names.length);
  for (const n of names) assert.match(n, /^q-[0-9a-f]{24}$/);
  assert.equal(questionName(['spec'], false), questionName(['spec'], false));
});

test('nothing is kept for a document URL without a hash (a later run could not tell it is current)', async () => {
  await withServer(async (s) => {
    let made = 0;
    assert.equal(await s.openapi().kept('x.dev/v1', 'explain-things.q-4', async () => `text ${++made}`), 'text 1');
    assert.equal(await s.openapi().kept('x.dev/v1', 'explain-things.q-4', async () => `text ${++made}`), 'text 2');
  }, false);
});
