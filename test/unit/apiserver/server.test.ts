// The local API server's front door: /version, bearer-token auth (401/403 bodies as recorded),
// the request log, fault injection, TLS with the generated CA, and the kubeconfig it writes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, VERSION_INFO, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange } from '../../support/exchanges.js';
import { call, configMap } from './helpers.js';

describe('local API server: auth, version, request log, faults', () => {
  let server: LocalApiServer;
  before(async () => {
    server = await startServer({ seed: 'empty' });
  });
  after(() => server.stop());

  test('/version has the keys and value types of recording 01 and a v1.32 gitVersion', async () => {
    const r = await call(server, 'GET', '/version');
    assert.equal(r.status, 200);
    const recorded = loadExchange(1).json as Record<string, unknown>;
    assert.deepEqual(Object.keys(r.json), Object.keys(recorded));
    assert.match(r.json.gitVersion, /^v1\.32\.\d+$/);
    assert.equal(r.json.major, '1');
    assert.equal(r.json.minor, '32');
    assert.deepEqual(r.json, VERSION_INFO);
    assert.equal(r.headers.get('content-type'), 'application/json');
  });

  test('missing and wrong tokens get recording 46\'s 401 Status', async () => {
    const recorded = loadExchange(46);
    for (const as of ['none', { token: 'not-a-token' }] as const) {
      const r = await call(server, 'GET', '/api/v1/namespaces', { as });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, recorded.json);
    }
  });

  test('the read-only token reads but gets 403 on writes, worded like recording 47', async () => {
    const list = await call(server, 'GET', '/api/v1/namespaces/default/configmaps', { as: 'viewer' });
    assert.equal(list.status, 200);
    const create = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { as: 'viewer', body: configMap('x', 'default') });
    assert.equal(create.status, 403);
    const recorded = loadExchange(47).json as Record<string, any>;
    assert.deepEqual(Object.keys(create.json), Object.keys(recorded));
    assert.equal(create.json.message, 'configmaps is forbidden: User "viewer" cannot create resource "configmaps" in API group "" in the namespace "default"');
    assert.deepEqual(create.json.details, { kind: 'configmaps' });
    assert.equal(create.headers.get('x-content-type-options'), 'nosniff');
    const del = await call(server, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/web', { as: 'viewer' });
    assert.equal(del.status, 403);
    assert.equal(del.json.message, 'deployments.apps "web" is forbidden: User "viewer" cannot delete resource "deployments" in API group "apps" in the namespace "default"');
    assert.deepEqual(del.json.details, { name: 'web', group: 'apps', kind: 'deployments' });
    const ns = await call(server, 'POST', '/api/v1/namespaces', { as: 'viewer', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } } });
    assert.equal(ns.json.message, 'namespaces is forbidden: User "viewer" cannot create resource "namespaces" in API group "" at the cluster scope');
    assert.equal(server.store.get('', 'configmaps', 'default', 'x'), undefined);
  });

  test('the request log is bounded (requestLogLimit): the oldest half goes when it is full', async () => {
    const small = await startServer({ seed: 'empty', requestLogLimit: 4 });
    try {
      for (let i = 0; i < 5; i++) await call(small, 'GET', `/api/v1/namespaces?limit=${i + 1}`);
      assert.deepEqual(small.requestLog.map((e) => e.query), ['limit=3', 'limit=4', 'limit=5']);
    } finally {
      await small.stop();
    }
  });

  test('the request log records method, path, query, Accept, status, user agent and the client\'s port', async () => {
    server.clearLog();
    await call(server, 'GET', '/api/v1/namespaces?limit=2', { headers: { accept: 'application/json', 'user-agent': 'kdyn-test/1.0' } });
    await call(server, 'GET', '/api/v1/namespaces/nope', { headers: { 'user-agent': 'kdyn-test/1.0' } });
    assert.equal(server.requestLog.length, 2);
    const [a, b] = server.requestLog;
    assert.ok(Number.isInteger(a!.remotePort) && a!.remotePort! > 0, `remotePort ${a!.remotePort}`);
    assert.deepEqual({ ...a, time: 0, remotePort: 0 }, { method: 'GET', path: '/api/v1/namespaces', query: 'limit=2', accept: 'application/json', status: 200, userAgent: 'kdyn-test/1.0', time: 0, remotePort: 0 });
    assert.equal(b!.status, 404);
    assert.ok(Math.abs(a!.time - Date.now()) < 60_000);
  });

  test('faults answer before auth, count down `times`, can reset the connection, and are logged', async () => {
    server.clearLog();
    server.faults.add({ path: '/api/v1/namespaces', status: 503, headers: { 'retry-after': '1' }, times: 2 });
    const r1 = await call(server, 'GET', '/api/v1/namespaces', { as: 'none' });
    assert.equal(r1.status, 503);
    assert.equal(r1.headers.get('retry-after'), '1');
    assert.equal(r1.json.code, 503);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces')).status, 503);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces')).status, 200);
    server.faults.add({ method: 'GET', path: /\/configmaps\?.*limit=/, reset: true, times: 1 });
    await assert.rejects(() => call(server, 'GET', '/api/v1/namespaces/default/configmaps?limit=1'));
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/default/configmaps?limit=1')).status, 200);
    server.faults.add({ path: '/version', status: 500, body: 'boom', headers: { 'content-type': 'text/plain' } });
    const r = await call(server, 'GET', '/version');
    assert.equal(r.text, 'boom');
    server.faults.clear();
    assert.equal((await call(server, 'GET', '/version')).status, 200);
    assert.deepEqual(server.requestLog.map((e) => e.status), [503, 503, 200, -1, 200, 500, 200]);
  });

  test('a delay-only fault waits on the server clock, then lets the request through', async () => {
    const clock = new FakeClock();
    const slow = await startServer({ clock });
    try {
      slow.faults.add({ path: '/version', delayMs: 60_000, times: 1 });
      let done = false;
      const pending = call(slow, 'GET', '/version').then((r) => {
        done = true;
        return r;
      });
      while (clock.pending === 0) await new Promise((r) => setImmediate(r));
      assert.equal(done, false);
      clock.advance(60_000);
      const r = await pending;
      assert.equal(r.status, 200);
      assert.equal(slow.faults.active[0]!.hits, 1);
    } finally {
      await slow.stop();
    }
  });

  test('non-resource paths the server does not know: 404 page not found', async () => {
    const r = await call(server, 'GET', '/nothing/here');
    assert.equal(r.status, 404);
    assert.equal(r.text, '404 page not found\n');
  });
});

describe('local API server over TLS', () => {
  let server: LocalApiServer;
  let dir: string;
  before(async () => {
    server = await startServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'kdyn-apiserver-'));
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function get(path: string, opts: https.RequestOptions): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      https
        .get(server.url + path, opts, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  }

  test('the serving certificate verifies with caPem for 127.0.0.1 and localhost, and not without it', async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(server.caPem ?? '', /^-----BEGIN CERTIFICATE-----\n/);
    const r = await get('/version', { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } });
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).gitVersion, VERSION_INFO.gitVersion);
    const viaLocalhost = await new Promise<number>((resolve, reject) => {
      https.get(`https://localhost:${server.port}/version`, { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    assert.equal(viaLocalhost, 200);
    await assert.rejects(() => get('/version', {}), (e: NodeJS.ErrnoException) => e.code === 'SELF_SIGNED_CERT_IN_CHAIN');
  });

  test('writeKubeconfig: server URL, certificate-authority-data with the CA, the token, a namespace', () => {
    const file = join(dir, 'kubeconfig');
    server.writeKubeconfig(file, { namespace: 'kube-system', contextName: 'local' });
    const kc = load(readFileSync(file, 'utf8')) as any;
    assert.equal(kc['current-context'], 'local');
    assert.equal(kc.clusters[0].cluster.server, server.url);
    assert.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), server.caPem);
    assert.equal(kc.users[0].user.token, server.token);
    assert.equal(kc.contexts[0].context.namespace, 'kube-system');
    const viewer = load(server.kubeconfig({ token: server.readOnlyToken })) as any;
    assert.equal(viewer.users[0].user.token, server.readOnlyToken);
  });

  test('a plain-HTTP server writes an http:// server and no CA', async () => {
    const plain = await startServer();
    try {
      const kc = load(plain.kubeconfig()) as any;
      assert.match(kc.clusters[0].cluster.server, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(kc.clusters[0].cluster['certificate-authority-data'], undefined);
      assert.equal(plain.caPem, undefined);
    } finally {
      await plain.stop();
    }
  });
});
