import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/log.js';
import { createTransport } from '../../../src/transport/http.js';
import { parseRetryAfter, retryDelay, DEFAULT_RETRY } from '../../../src/transport/retry.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import type { CredentialProvider } from '../../../src/kubeconfig/types.js';
import { recordingClock, restConfigFor } from './helpers.js';

let s: LocalApiServer;
before(async () => {
  s = await startServer({ tls: true, seed: 'empty' });
});
after(() => s.stop());
beforeEach(() => {
  s.faults.clear();
  s.clearLog();
});

function transport(credentials?: CredentialProvider) {
  const clock = recordingClock();
  const t = createTransport(restConfigFor(s, credentials && { credentials }), { logger: silentLogger, clock, env: {}, timeoutMs: 0, random: () => 0.5 });
  return { t, clock };
}
const statuses = () => s.requestLog.map((r) => r.status);

describe('bounded retries for idempotent requests', () => {
  test('503 with Retry-After: waits as told, then succeeds', async () => {
    s.faults.add({ path: '/version', status: 503, headers: { 'retry-after': '2' }, times: 2 });
    const { t, clock } = transport();
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 200);
    assert.deepEqual(statuses(), [503, 503, 200]);
    assert.deepEqual(clock.sleeps, [2000, 2000]);
  });

  test('Retry-After is capped', async () => {
    s.faults.add({ path: '/version', status: 429, headers: { 'retry-after': '3600' }, times: 1 });
    const { t, clock } = transport();
    assert.equal((await t.request({ path: '/version' })).status, 200);
    t.close();
    assert.deepEqual(clock.sleeps, [DEFAULT_RETRY.maxDelayMs]);
  });

  test('retryAfterMaxMs caps a Retry-After for one request (a watch back from a restart), streams too; other waits unchanged', async () => {
    s.faults.add({ path: '/api/v1/namespaces/default/configmaps', status: 503, headers: { 'retry-after': '5' }, times: 2 });
    const { t, clock } = transport();
    const res = await t.stream({ path: '/api/v1/namespaces/default/configmaps', query: { watch: '1', timeoutSeconds: 1 }, retryAfterMaxMs: 1000 });
    res.close();
    assert.equal(res.status, 200);
    assert.deepEqual(clock.sleeps, [1000, 1000]);
    s.faults.add({ path: '/version', status: 429, times: 1 });
    assert.equal((await t.request({ path: '/version', retryAfterMaxMs: 1 })).status, 200);
    t.close();
    assert.deepEqual(clock.sleeps, [1000, 1000, 188], 'no Retry-After: the backoff, not the cap');
  });

  test('429 without Retry-After: exponential backoff; gives up after 3 retries and returns the answer', async () => {
    s.faults.add({ path: '/version', status: 429 });
    const { t, clock } = transport();
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 429);
    assert.deepEqual(statuses(), [429, 429, 429, 429]);
    // random() = 0.5 -> 3/4 of each doubling step
    assert.deepEqual(clock.sleeps, [188, 375, 750]);
  });

  test('onRetry is told before each wait, with why: the status answered, a network failure (before the answer and in the body)', async () => {
    s.faults.add({ path: '/version', status: 503, headers: { 'retry-after': '1' }, times: 1 });
    s.faults.add({ path: '/version', reset: true, times: 1 });
    const { t, clock } = transport();
    const why: string[] = [];
    const res = await t.request({ path: '/version', onRetry: (w) => why.push(w.kind === 'status' ? `status ${w.status} after ${clock.sleeps.length} waits` : `network ${(w.error as NodeJS.ErrnoException).code ?? (w.error as Error).message} after ${clock.sleeps.length} waits`) });
    assert.equal(res.status, 200);
    const streamed = await t.stream({ path: '/api/v1/namespaces/default/configmaps', query: { watch: '1', timeoutSeconds: 1 }, onRetry: (w) => why.push(`stream ${w.kind}`) });
    streamed.close();
    t.close();
    assert.deepEqual(why, ['status 503 after 0 waits', 'network ECONNRESET after 1 waits'], 'the stream needed no retry: not told');
    s.faults.add({ path: '/api/v1/namespaces/default/configmaps', status: 503, times: 1 });
    const { t: t2 } = transport();
    const again = await t2.stream({ path: '/api/v1/namespaces/default/configmaps', query: { watch: '1', timeoutSeconds: 1 }, onRetry: (w) => why.push(`stream ${w.kind === 'status' ? w.status : w.kind}`) });
    again.close();
    t2.close();
    assert.deepEqual(why.slice(2), ['stream 503']);
  });

  test('a connection reset is retried', async () => {
    s.faults.add({ path: '/version', reset: true, times: 2 });
    const { t, clock } = transport();
    assert.equal((await t.request({ path: '/version' })).status, 200);
    t.close();
    assert.equal(clock.sleeps.length, 2);
    assert.deepEqual(statuses(), [-1, -1, 200]);
  });

  test('persistent resets end in a one-line ConnectionError', async () => {
    s.faults.add({ path: '/version', reset: true });
    const { t } = transport();
    await assert.rejects(t.request({ path: '/version' }), (e: Error) => {
      assert.ok(e instanceof ConnectionError);
      assert.match(e.message, /^Unable to connect to the server: the connection to 127\.0\.0\.1:\d+ was closed by the server before the response to GET https:\/\/127\.0\.0\.1:\d+\/version was complete \(EOF\)$/);
      return true;
    });
    t.close();
    assert.equal(s.requestLog.length, 4);
  });

  test('non-idempotent requests are not retried', async () => {
    s.faults.add({ path: '/api/v1/namespaces/default/configmaps', method: 'POST', status: 503 });
    const { t, clock } = transport();
    const res = await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: '{}', headers: { 'Content-Type': 'application/json' } });
    t.close();
    assert.equal(res.status, 503);
    assert.equal(s.requestLog.length, 1);
    assert.deepEqual(clock.sleeps, []);
  });

  test('...unless marked idempotent', async () => {
    s.faults.add({ path: '/api/v1/namespaces/default/configmaps', method: 'POST', status: 503, times: 1 });
    const { t } = transport();
    await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: '{"metadata":{"name":"x"}}', headers: { 'Content-Type': 'application/json' }, idempotent: true } as never);
    t.close();
    assert.equal(s.requestLog.length, 2);
  });
});

describe('retries and the 401 credential refresh', () => {
  /** Credentials the server accepts; counts refreshes (the 401s below are injected). */
  function refreshing() {
    const c = { refreshes: 0 };
    const credentials: CredentialProvider = { kind: 'exec', getAuthorization: async () => `Bearer ${s.token}`, refreshAfterUnauthorized: async () => (c.refreshes++, true) };
    return { c, credentials };
  }

  test('the request sent again after a refresh continues the count of attempts', async () => {
    for (const [status, times] of [[503, 1], [401, 1], [503, 3]] as const) s.faults.add({ path: '/version', status, times });
    const { c, credentials } = refreshing();
    const { t, clock } = transport(credentials);
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 503);
    assert.equal(c.refreshes, 1);
    assert.deepEqual(statuses(), [503, 401, 503, 503, 503]);
    assert.deepEqual(clock.sleeps, [188, 375, 750]);
  });

  test('one refresh per request, across its retries', async () => {
    for (const [status, times] of [[401, 1], [503, 1], [401, 1]] as const) s.faults.add({ path: '/version', status, times });
    const { c, credentials } = refreshing();
    const { t } = transport(credentials);
    const res = await t.request({ path: '/version' });
    t.close();
    assert.equal(res.status, 401);
    assert.equal(c.refreshes, 1);
    assert.deepEqual(statuses(), [401, 503, 401]);
  });
});

describe('retry delays', () => {
  test('Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.UTC(2026, 0, 1)), 30);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });
  test('backoff doubles, with jitter in [half, full), capped', () => {
    const p = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 300 };
    assert.equal(retryDelay(0, undefined, p, () => 0), 50);
    assert.equal(retryDelay(1, undefined, p, () => 0.999), 200);
    assert.equal(retryDelay(5, undefined, p, () => 0), 300);
    assert.equal(retryDelay(0, '1', p), 300);
  });
});
