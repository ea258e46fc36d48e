// Each fault mode of the local API server, switched in process and (for the spec parser and one
// launcher run) from the command line: 429/500/503 with Retry-After for the next N requests under a
// path, delay, drip, reset mid-body, a failing or Stale group-version, hostile discovery documents,
// redirect. (Watch faults and restart: watch.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { Faults, applyFaultSpec } from '../../support/apiserver/faults.js';
import { call } from './helpers.js';
import { tick } from './watch-helpers.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: Buffer[];
  error?: string;
}

/** A GET that records each body chunk and how the response ended. */
function rawGet(server: LocalApiServer, path: string, headers: Record<string, string> = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      const out: RawReply = { status: res.statusCode ?? 0, headers: res.headers, chunks: [] };
      res.on('data', (c: Buffer) => out.chunks.push(c));
      res.on('end', () => resolve(out));
      res.on('error', (e) => resolve({ ...out, error: e.message }));
      res.on('aborted', () => resolve({ ...out, error: 'aborted' }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('faults', () => {
  let server: LocalApiServer;
  let clock: FakeClock;
  before(async () => {
    clock = new FakeClock();
    server = await startServer({ seed: 'demo', clock });
  });
  after(() => server?.stop());

  for (const status of [429, 500, 503]) {
    test(`${status} with Retry-After for the next N requests under a path, then normal answers`, async () => {
      server.faults.failNext({ status, path: '/api/v1', times: 2, retryAfterSeconds: 7 });
      for (let i = 0; i < 2; i++) {
        const r = await call(server, 'GET', '/api/v1/namespaces?limit=1');
        assert.equal(r.status, status);
        assert.equal(r.headers.get('retry-after'), '7');
        assert.equal(r.json.kind, 'Status');
        assert.equal(r.json.code, status);
        assert.equal(r.json.reason, { 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' }[status]);
        assert.equal(r.json.details.retryAfterSeconds, 7);
      }
      assert.equal((await call(server, 'GET', '/apis/apps/v1')).status, 200, 'other paths are not affected');
      assert.equal((await call(server, 'GET', '/api/v1/namespaces')).status, 200, 'only N requests');
      server.faults.clear();
    });
  }

  test('delay: the answer waits on the server clock', async () => {
    server.faults.add({ path: '/version', delayMs: 3000, times: 1 });
    let done = false;
    const p = call(server, 'GET', '/version').then((r) => ((done = true), r));
    for (let i = 0; i < 20 && clock.pending === 0; i++) await tick();
    clock.advance(2999);
    await tick();
    assert.equal(done, false);
    clock.advance(1);
    assert.equal((await p).status, 200);
    server.faults.clear();
  });

  test('drip: the body arrives a few bytes at a time, complete', async () => {
    const normal = await rawGet(server, '/version');
    const whole = Buffer.concat(normal.chunks).toString();
    server.faults.add({ path: '/version', drip: { bytes: 40, intervalMs: 100 }, times: 1 });
    const p = rawGet(server, '/version');
    let settled = false;
    void p.then(() => (settled = true));
    let advanced = 0;
    for (let i = 0; i < 200 && !settled; i++) {
      await tick();
      if (clock.pending) {
        clock.advance(100);
        advanced++;
      }
    }
    const r = await p;
    assert.equal(Buffer.concat(r.chunks).toString(), whole);
    // One 100 ms pause between each 40-byte piece (the client may read pieces together).
    assert.equal(advanced, Math.ceil(whole.length / 40) - 1);
    assert.ok(r.chunks.length >= 2, `${r.chunks.length} chunks`);
    server.faults.clear();
  });

  test('reset mid-body: the announced Content-Length is not delivered, the connection is gone', async () => {
    server.faults.add({ path: '/api/v1/namespaces', resetAfterBytes: 50, times: 1 });
    const r = await rawGet(server, '/api/v1/namespaces');
    assert.equal(r.status, 200);
    const got = Buffer.concat(r.chunks).length;
    assert.equal(got, 50);
    assert.ok(Number(r.headers['content-length']) > got);
    assert.ok(r.error, 'the response did not end normally');
    server.faults.clear();
  });

  test('one group-version fails 503 (discovery and resources); another is Stale in aggregated discovery', async () => {
    const before = await call(server, 'GET', '/apis', { headers: { accept: AGGREGATED } });
    server.faults.failGroupVersion('apps/v1');
    server.faults.failGroupVersion('batch/v1', 'stale');
    for (const p of ['/apis/apps/v1', '/apis/apps/v1/namespaces/default/deployments']) {
      const r = await call(server, 'GET', p);
      assert.equal(r.status, 503, p);
      assert.equal(r.json.reason, 'ServiceUnavailable');
    }
    assert.equal((await call(server, 'GET', '/apis/batch/v1')).status, 200);
    assert.equal((await call(server, 'GET', '/api/v1')).status, 200);
    const agg = await call(server, 'GET', '/apis', { headers: { accept: AGGREGATED } });
    const freshness = (name: string, v: string) => agg.json.items.find((g: any) => g.metadata.name === name).versions.find((x: any) => x.version === v).freshness;
    assert.equal(freshness('batch', 'v1'), 'Stale');
    assert.equal(freshness('apps', 'v1'), 'Stale');
    assert.equal(freshness('policy', 'v1'), 'Current');
    assert.notEqual(agg.headers.get('etag'), before.headers.get('etag'), 'a new etag for the changed document');
    server.faults.clear();
    assert.equal((await call(server, 'GET', '/apis/apps/v1')).status, 200);
  });

  test('hostile discovery documents: names with "/", "..", NUL, 10 kB long; 50 MB; invalid JSON', async () => {
    const names = (doc: any) => ({
      groups: doc.items ? doc.items.map((g: any) => g.metadata.name) : doc.groups.map((g: any) => g.name),
      versions: doc.items ? doc.items.flatMap((g: any) => g.versions.map((v: any) => v.version)) : doc.groups.flatMap((g: any) => g.versions.map((v: any) => v.version)),
      resources: doc.items ? doc.items.flatMap((g: any) => g.versions.flatMap((v: any) => v.resources.map((r: any) => r.resource))) : [],
    });
    const cases: Array<[Faults['discovery'], (s: string) => boolean]> = [
      ['slash', (s) => s.includes('/')],
      ['dotdot', (s) => s === '..'],
      ['nul', (s) => s.includes('\u0000')],
      ['long', (s) => s.length >= 10 * 1024],
    ];
    for (const [kind, bad] of cases) {
      server.faults.discovery = kind;
      for (const accept of [AGGREGATED, 'application/json']) {
        const r = await call(server, 'GET', '/apis', { headers: { accept } });
        assert.equal(r.status, 200);
        const n = names(r.json);
        assert.ok(n.groups.some(bad), `${kind} group (${accept})`);
        assert.ok(n.versions.some(bad), `${kind} version (${accept})`);
        if (accept === AGGREGATED) assert.ok(n.resources.some(bad), `${kind} resource`);
      }
    }
    server.faults.discovery = 'huge';
    const huge = await rawGet(server, '/apis', { accept: AGGREGATED });
    assert.ok(Buffer.concat(huge.chunks).length >= 50_000_000, `${Buffer.concat(huge.chunks).length} bytes`);
    server.faults.discovery = 'invalid-json';
    const bad = await call(server, 'GET', '/apis', { headers: { accept: AGGREGATED } });
    assert.equal(bad.status, 200);
    assert.throws(() => JSON.parse(bad.text));
    server.faults.clear();
    const healed = await call(server, 'GET', '/apis', { headers: { accept: AGGREGATED } });
    assert.ok(healed.json.items.every((g: any) => !g.metadata.name.includes('/')), 'cleared: the normal document again');
  });

  test('redirect to another host', async () => {
    server.faults.add({ path: '/version', redirect: 'http://elsewhere.example:8443', times: 1 });
    const r = await rawGet(server, '/version?x=1');
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, 'http://elsewhere.example:8443/version?x=1');
    assert.equal((await rawGet(server, '/version')).status, 200);
    server.faults.clear();
  });
});

describe('fault specs (the --fault command-line option)', () => {
  test('each spec form sets the matching fault', () => {
    const f = new Faults();
    applyFaultSpec(f, 'status=503,path=/api/v1,times=3,retry-after=2');
    assert.equal(f.active[0]!.status, 503);
    assert.equal(f.active[0]!.times, 3);
    assert.equal(f.active[0]!.headers!['retry-after'], '2');
    assert.ok(f.take('GET', '/api/v1/pods', 'limit=1'), 'a path prefix');
    assert.equal(new Faults().take('GET', '/api/v10', ''), undefined);
    applyFaultSpec(f, 'reset,path=/version,times=1');
    applyFaultSpec(f, 'reset-after-bytes=100,path=/apis');
    applyFaultSpec(f, 'delay=500,path=/apis');
    applyFaultSpec(f, 'drip=16:50,path=/apis');
    applyFaultSpec(f, 'redirect=http://other:8080,path=/version');
    assert.deepEqual(f.active.slice(1).map((x) => [x.reset, x.resetAfterBytes, x.delayMs, x.drip, x.redirect]), [
      [true, undefined, undefined, undefined, undefined],
      [undefined, 100, undefined, undefined, undefined],
      [undefined, undefined, 500, undefined, undefined],
      [undefined, undefined, undefined, { bytes: 16, intervalMs: 50 }, undefined],
      [undefined, undefined, undefined, undefined, 'http://other:8080'],
    ]);
    applyFaultSpec(f, 'gv-unavailable=apps/v1');
    applyFaultSpec(f, 'gv-stale=batch/v1');
    assert.deepEqual([...f.groupVersions], [['apps/v1', 'unavailable'], ['batch/v1', 'stale']]);
    applyFaultSpec(f, 'hostile-discovery=nul');
    assert.equal(f.discovery, 'nul');
    applyFaultSpec(f, 'watch-close-after-events=5');
    applyFaultSpec(f, 'watch-close-after=1000');
    assert.deepEqual(f.watch, { closeAfterEvents: 5, closeAfterMs: 1000 });
  });

  test('bad specs are refused with a message naming the part', () => {
    const f = new Faults();
    assert.throws(() => applyFaultSpec(f, 'status=abc,path=/x'), /status must be a non-negative integer, got "abc"/);
    assert.throws(() => applyFaultSpec(f, 'status=503'), /path=\.\.\. is required/);
    assert.throws(() => applyFaultSpec(f, 'bogus=1,path=/x'), /unknown key "bogus"/);
    assert.throws(() => applyFaultSpec(f, 'hostile-discovery=weird'), /hostile-discovery must be one of/);
    assert.throws(() => applyFaultSpec(f, 'drip=3,path=/x'), /drip must be BYTES:INTERVAL_MS/);
    assert.throws(() => applyFaultSpec(f, 'path=/x'), /nothing to do/);
    assert.equal(f.active.length, 0);
  });

  test('the launcher applies --fault: the first /version answers 503 with Retry-After, the next 200; a bad spec exits 2', async () => {
    const main = fileURLToPath(new URL('../../support/apiserver/main.js', import.meta.url));
    const child = spawn(process.execPath, [main, '--fault', 'status=503,path=/version,times=1,retry-after=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c) => {
          out += c;
          const m = /^ready (\S+)\n/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const first = await fetch(`${url}/version`);
      assert.equal(first.status, 503);
      assert.equal(first.headers.get('retry-after'), '1');
      assert.equal((await fetch(`${url}/version`)).status, 401, 'the fault is used up: the normal answer (no token)');
    } finally {
      child.kill('SIGTERM');
    }
    const bad = spawn(process.execPath, [main, '--fault', 'status=x,path=/v'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr!.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((r) => bad.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /^local-apiserver: --fault status=x,path=\/v: status must be a non-negative integer, got "x"\n$/);
  });
});
