/**
 * The OpenAPI v3 index is never staler than kubectl's: kube-apiserver's index carries a Last-Modified
 * of whole seconds and no ETag, so a conditional request (`If-Modified-Since`) made in the second a
 * CRD changed is answered 304 with the old hashes. kubectl asks for the index without a validator;
 * so does kdyn. A server on a real socket that answers exactly that way (304 to any
 * If-Modified-Since, as the real one does within the second) checks it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildKubeconfig } from '../../support/apiserver/kubeconfig.js';
import { connect } from '../../../src/connect.js';
import { createOpenApiV3 } from '../../../src/openapi/v3.js';
import { systemClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';

test('the index is asked for without If-Modified-Since, so a hash changed within the second is seen', async () => {
  let hash = 'AAA';
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/openapi/v3?') || req.url === '/openapi/v3') {
      seen.push(req.headers);
      if (req.headers['if-modified-since']) return void res.writeHead(304).end();
      const body = JSON.stringify({ paths: { 'apis/x.dev/v1': { serverRelativeURL: `/openapi/v3/apis/x.dev/v1?hash=${hash}` } } });
      return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache, private', 'last-modified': 'Fri, 27 Nov 2026 07:05:49 GMT' }).end(body);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-openapi-fresh-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, buildKubeconfig({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' }));
    const conn = await connect({ kubeconfig, env: { HOME: dir }, cacheDir: join(dir, 'cache') });
    const run = () => createOpenApiV3({ transport: conn.transport, server: conn.config.server, cacheDir: join(dir, 'cache'), env: {}, clock: systemClock, logger: silentLogger }).paths();
    assert.equal((await run()).get('apis/x.dev/v1'), '/openapi/v3/apis/x.dev/v1?hash=AAA');
    hash = 'BBB'; // a CRD changed, within the same second of Last-Modified
    assert.equal((await run()).get('apis/x.dev/v1'), '/openapi/v3/apis/x.dev/v1?hash=BBB');
    assert.deepEqual(seen.map((h) => h['if-modified-since']), [undefined, undefined]);
    conn.close();
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
