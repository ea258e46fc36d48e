/**
 * Discovery's own time limit (kubectl's 32 s when there is no --request-timeout), with the injected
 * clock: a real socket to a server that accepts and never answers, and no real waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { createTransport } from '../../../src/transport/http.js';
import { fetchDiscovery } from '../../../src/discovery/client.js';
import { restConfigFor, startRawServer } from '../transport/helpers.js';

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(cond(), 'condition reached');
}

test('a server that never answers: discovery gives up after 32 s of the injected clock, not before', async () => {
  const raw = await startRawServer('', { keepOpen: true });
  try {
    const clock = new FakeClock();
    const t = createTransport(restConfigFor({ url: raw.url, caPem: undefined, token: 'x' }), { logger: silentLogger, clock, env: {}, timeoutMs: 0 });
    let settled = false;
    const p = fetchDiscovery(t).finally(() => (settled = true));
    p.catch(() => undefined);
    await until(() => clock.pending === 2); // /api and /apis, each waiting on its timer
    clock.advance(31_999);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(settled, false, 'still waiting at 31.999 s');
    clock.advance(1);
    await assert.rejects(p, { message: /^Unable to connect to the server: net\/http: request canceled \(Client\.Timeout exceeded after 32s on GET http:\/\/127\.0\.0\.1:\d+\/apis?\?timeout=32s; see timeoutMs\)$/ });
    t.close();
  } finally {
    await raw.stop();
  }
});

test('--request-timeout replaces the 32 s (and the ?timeout= sent)', async () => {
  const raw = await startRawServer('', { keepOpen: true });
  try {
    const clock = new FakeClock();
    const t = createTransport(restConfigFor({ url: raw.url, caPem: undefined, token: 'x' }), { logger: silentLogger, clock, env: {}, timeoutMs: 5000 });
    const p = fetchDiscovery(t);
    p.catch(() => undefined);
    await until(() => clock.pending === 2);
    clock.advance(5000);
    await assert.rejects(p, { message: /after 5s on GET http:\/\/127\.0\.0\.1:\d+\/apis?\?timeout=5s;/ });
    t.close();
  } finally {
    await raw.stop();
  }
});
