import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionError } from '../../../src/core/errors.js';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { USER_AGENT } from '../../../src/core/version.js';
import { createTransport, type TransportOptions } from '../../../src/transport/http.js';
import { ensureOk, jsonBody, statusError } from '../../../src/transport/status.js';
import type { CredentialProvider } from '../../../src/kubeconfig/types.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { captureLogger, recordingClock, restConfigFor, startForwarder, startRawServer } from './helpers.js';

let s: LocalApiServer;
before(async () => {
  s = await startServer({ tls: true, seed: 'empty' });
});
after(() => s.stop());

const opts = (extra: Partial<Parameters<typeof createTransport>[1]> = {}) => ({ logger: silentLogger, clock: recordingClock(), env: {}, timeoutMs: 0, ...extra });

describe('keep-alive', () => {
  test('several requests share one TCP (and TLS) connection', async () => {
    const fwd = await startForwarder(s.port);
    const t = createTransport(restConfigFor(s, { server: `https://127.0.0.1:${fwd.port}` }), opts());
    try {
      for (let i = 0; i < 5; i++) assert.equal((await t.request({ path: '/version' })).status, 200);
      // concurrent requests may open more sockets, sequential ones must reuse the pooled one
      assert.equal(fwd.connections(), 1);
    } finally {
      t.close();
      await fwd.stop();
    }
  });
});

describe('TLS', () => {
  test('the server\'s CA verifies; User-Agent and Authorization are sent', async () => {
    const t = createTransport(restConfigFor(s), opts());
    s.clearLog();
    const res = ensureOk(await t.request({ path: '/version' }));
    t.close();
    assert.equal(jsonBody<{ gitVersion: string }>(res).gitVersion.startsWith('v1.32'), true);
    assert.equal(s.requestLog.at(-1)!.userAgent, USER_AGENT);
    assert.equal(res.url, `${s.url}/version`);
  });

  test('without the CA: kubectl\'s unknown-authority message', async () => {
    const t = createTransport(restConfigFor(s, { tls: { insecure: false } }), opts());
    await assert.rejects(t.request({ path: '/version' }), (e: Error) => {
      assert.ok(e instanceof ConnectionError);
      assert.equal(e.message, 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority');
      return true;
    });
    t.close();
  });

  test('insecure-skip-tls-verify connects without a CA', async () => {
    const t = createTransport(restConfigFor(s, { tls: { insecure: true } }), opts());
    assert.equal((await t.request({ path: '/version' })).status, 200);
    t.close();
  });

  test('tls-server-name is used for verification', async () => {
    const ok = createTransport(restConfigFor(s, { tls: { caData: Buffer.from(s.caPem!), insecure: false, serverName: 'localhost' } }), opts());
    assert.equal((await ok.request({ path: '/version' })).status, 200);
    ok.close();
    const bad = createTransport(restConfigFor(s, { tls: { caData: Buffer.from(s.caPem!), insecure: false, serverName: 'other.example' } }), opts());
    await assert.rejects(bad.request({ path: '/version' }), { message: /^Unable to connect to the server: tls: failed to verify certificate: x509: certificate is valid for localhost, not other\.example$/ /* Go lists the DNS SANs for a name */ });
    bad.close();
  });
});

describe('errors', () => {
  test('connection refused names host:port', async () => {
    const t = createTransport(restConfigFor(s, { server: 'https://127.0.0.1:1' }), opts());
    await assert.rejects(t.request({ path: '/version' }), {
      message: 'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?',
    });
  });

  test('401 with a wrong token: kubectl\'s logged-in message, token not echoed', async () => {
    const t = createTransport(restConfigFor(s, { credentials: { kind: 'token', getAuthorization: async () => 'Bearer wrong-secret', refreshAfterUnauthorized: async () => false } }), opts());
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 401);
    const e = statusError(res);
    assert.equal(e.message, 'error: You must be logged in to the server (Unauthorized)');
    assert.equal(e.reason, 'Unauthorized');
  });

  test('401 then a refreshed credential: retried once', async () => {
    let calls = 0;
    let refreshes = 0;
    const creds: CredentialProvider = {
      kind: 'exec',
      getAuthorization: async () => (calls++ === 0 ? 'Bearer stale' : `Bearer ${s.token}`),
      refreshAfterUnauthorized: async () => (refreshes++, true),
    };
    const t = createTransport(restConfigFor(s, { credentials: creds }), opts());
    s.clearLog();
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 200);
    assert.equal(refreshes, 1);
    assert.deepEqual(s.requestLog.map((r) => r.status), [401, 200]);
  });

  test('401 is retried at most once', async () => {
    const creds: CredentialProvider = { kind: 'exec', getAuthorization: async () => 'Bearer never-valid', refreshAfterUnauthorized: async () => true };
    const t = createTransport(restConfigFor(s, { credentials: creds }), opts());
    s.clearLog();
    assert.equal((await t.request({ path: '/version' })).status, 401);
    t.close();
    assert.equal(s.requestLog.length, 2);
  });

  test("a slow answer fails with a timeout message that names what set the limit, in the caller's words", async () => {
    const cases: Array<{ transport: Pick<TransportOptions, 'timeoutMs' | 'timeoutSetting'>; requestTimeoutMs?: number; see: string }> = [
      { transport: { timeoutMs: 1000, timeoutSetting: '--request-timeout' }, see: '--request-timeout' }, // the CLI
      { transport: { timeoutMs: 1000, timeoutSetting: 'requestTimeoutMs' }, see: 'requestTimeoutMs' }, // connect()
      { transport: { timeoutMs: 1000 }, see: 'timeoutMs' }, // createTransport's own option
      { transport: { timeoutMs: 0, timeoutSetting: '--request-timeout' }, requestTimeoutMs: 1000, see: 'timeoutMs' }, // the request's own
    ];
    for (const c of cases) {
      const clock = new FakeClock();
      s.faults.add({ path: '/healthz', delayMs: 1500, times: 1 });
      const t = createTransport(restConfigFor(s), { logger: silentLogger, clock, env: {}, ...c.transport });
      const p = t.request({ path: '/healthz', ...(c.requestTimeoutMs !== undefined && { timeoutMs: c.requestTimeoutMs }) });
      while (clock.pending === 0) await new Promise((r) => setImmediate(r));
      clock.advance(1000);
      const message = new RegExp(`^Unable to connect to the server: net/http: request canceled \\(Client\\.Timeout exceeded after 1s on GET https://127\\.0\\.0\\.1:\\d+/healthz\\?timeout=1s; see ${c.see}\\)$`);
      await assert.rejects(p, { message });
      t.close();
    }
  });

  test('a server that is not HTTP, truncated bodies, non-JSON bodies', async () => {
    const garbage = await startRawServer('SSH-2.0-OpenSSH_9.6\r\n');
    const t1 = createTransport(restConfigFor(s, { server: garbage.url }), opts());
    await assert.rejects(t1.request({ path: '/version' }), { message: /^Unable to connect to the server: net\/http: HTTP\/1\.x transport connection broken: malformed HTTP response from 127\.0\.0\.1:\d+ \(HPE_/ });
    t1.close();
    await garbage.stop();

    const short = await startRawServer('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"major":');
    const clock = recordingClock();
    const t2 = createTransport(restConfigFor(s, { server: short.url }), opts({ clock }));
    await assert.rejects(t2.request({ path: '/version' }), { message: /^Unable to connect to the server: unexpected EOF: the response to GET http:\/\/127\.0\.0\.1:\d+\/version was truncated$/ });
    assert.equal(clock.sleeps.length, 3, 'a truncated GET is retried (3 times) before giving up');
    t2.close();
    await short.stop();

    const html = await startRawServer('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html>x</html');
    const t3 = createTransport(restConfigFor(s, { server: html.url }), opts());
    const res = await t3.request({ path: '/version' });
    assert.throws(() => jsonBody(res), { message: /^the server's response to http:\/\/127\.0\.0\.1:\d+\/version \(HTTP 200\) could not be decoded as JSON: / });
    t3.close();
    await html.stop();
  });

  test('DNS failure', async () => {
    const t = createTransport(restConfigFor(s, { server: 'https://kdyn-does-not-exist.invalid:6443' }), opts());
    await assert.rejects(t.request({ path: '/version' }), { message: 'Unable to connect to the server: dial tcp: lookup kdyn-does-not-exist.invalid: no such host' });
  });
});

describe('logging', () => {
  test('-v=6: one kubectl-style line per request; -v=8 masks the token', async () => {
    const log6 = captureLogger(6);
    const t = createTransport(restConfigFor(s), opts({ logger: log6 }));
    await t.request({ path: '/version', query: { a: 'b c', skip: undefined } });
    await t.request({ path: '/api/v1/namespaces/default/configmaps/none' });
    t.close();
    const lines = log6.text().trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^I\d{4} [\d:.]+ +\d+ round_trippers\.go:560\] GET https:\/\/127\.0\.0\.1:\d+\/version\?a=b\+c 200 OK in \d+ milliseconds$/);
    assert.match(lines[1]!, /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/configmaps\/none 404 Not Found in \d+ milliseconds$/);

    const log8 = captureLogger(8);
    const t8 = createTransport(restConfigFor(s), opts({ logger: log8 }));
    await t8.request({ path: '/version' });
    t8.close();
    assert.match(log8.text(), /Authorization: Bearer <masked>/);
    assert.match(log8.text(), /Response Headers:/);
    assert.ok(!log8.text().includes(s.token), 'token never logged');
  });
});

describe('headers', () => {
  test('impersonation from the kubeconfig user; caller headers kept, User-Agent fixed', async () => {
    const { createServer } = await import('node:http');
    let seen: Record<string, string | string[] | undefined> = {};
    const srv = createServer((req, res) => {
      seen = req.headers;
      res.end('{}');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    const t = createTransport(
      restConfigFor(s, { server: `http://127.0.0.1:${port}`, impersonate: { user: 'jane', groups: ['devs', 'ops'], uid: 'u-1', extra: { scopes: ['a', 'b'] } } }),
      opts(),
    );
    await t.request({ path: '/x', headers: { Accept: 'application/yaml', 'User-Agent': 'spoofed' } });
    t.close();
    srv.close();
    assert.equal(seen['impersonate-user'], 'jane');
    assert.equal(seen['impersonate-group'], 'devs, ops');
    assert.equal(seen['impersonate-uid'], 'u-1');
    assert.equal(seen['impersonate-extra-scopes'], 'a, b');
    assert.equal(seen.accept, 'application/yaml');
    assert.equal(seen['user-agent'], USER_AGENT);
    assert.equal(seen.authorization, undefined, 'no credentials over plain http (clientcmd); impersonation is still sent, as by kubectl');
  });
});

describe('stream', () => {
  test('closing early aborts the request', async () => {
    const t = createTransport(restConfigFor(s), opts());
    const res = await t.stream({ path: '/version' });
    for await (const _ of res.body) break;
    res.close();
    // the pool still works afterwards
    assert.equal((await t.request({ path: '/version' })).status, 200);
    t.close();
  });

  test('yields the body in chunks and closes', async () => {
    const t = createTransport(restConfigFor(s), opts());
    const res = await t.stream({ path: '/version' });
    assert.equal(res.status, 200);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c);
    assert.equal(JSON.parse(Buffer.concat(chunks).toString()).major, '1');
    t.close();
  });
});
