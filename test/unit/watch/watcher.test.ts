/**
 * The Reflector-style watcher against a scripted loopback server: list then watch, resume from the
 * last resourceVersion (bookmarks included), relist with differences on 410, Retry-After and
 * backoff, errors that stop it, and the abort signal. No real waits (virtual clock).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, ConnectionError } from '../../../src/core/errors.js';
import { watch, type Watcher } from '../../../src/watch/watcher.js';
import type { ResumeInfo, RetryInfo, WatchEvent } from '../../../src/watch/types.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { bookmark, clientFor, cm, expired, listPage, startScripted, status, stream, virtualClock } from './helpers.js';

const GVR = { group: '', version: 'v1', resource: 'configmaps' };

/** Reads `n` events, then aborts the watch; returns them as `TYPE name rv` lines. */
async function take(w: Watcher, n: number, ac: AbortController): Promise<string[]> {
  const out: string[] = [];
  if (n === 0) return out;
  for await (const ev of w) {
    out.push(line(ev));
    if (out.length >= n) {
      ac.abort();
      break;
    }
  }
  return out;
}

function line(ev: WatchEvent): string {
  const m = ev.object.metadata ?? {};
  return `${ev.type} ${m.name ?? '-'} ${m.resourceVersion}`;
}

test('list (paged), watch from the list version, reconnect from the last version seen, bookmarks included', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(
      listPage([cm('a', 5)], 10, 'tok'),
      listPage([cm('b', 6)], 10),
      stream([{ type: 'MODIFIED', object: cm('a', 11) }, { type: 'ADDED', object: cm('c', 12) }], { chunk: 7 }),
      stream([bookmark(20)]),
      stream([{ type: 'DELETED', object: cm('b', 21) }]),
    );
    const ac = new AbortController();
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock, pageSize: 1, random: () => 0.5 });
    const got = await take(w, 5, ac);
    assert.deepEqual(got, ['ADDED a 5', 'ADDED b 6', 'MODIFIED a 11', 'ADDED c 12', 'DELETED b 21']);
    const q = s.requests.map((u) => u.searchParams);
    assert.equal(q[0]!.get('limit'), '1');
    assert.equal(q[1]!.get('continue'), 'tok');
    assert.equal(q[2]!.get('watch'), '1');
    assert.equal(q[2]!.get('resourceVersion'), '10');
    assert.equal(q[2]!.get('allowWatchBookmarks'), 'true');
    const timeout = Number(q[2]!.get('timeoutSeconds'));
    assert.ok(timeout >= 300 && timeout < 600, `timeoutSeconds ${timeout}`);
    assert.equal(q[3]!.get('resourceVersion'), '12', 'resumes after the last event');
    assert.equal(q[4]!.get('resourceVersion'), '20', 'the bookmark moved the resume point');
    assert.deepEqual(clock.sleeps, [], 'streams that delivered events reconnect at once');
    assert.deepEqual([...w.objects()].map((o) => o.metadata?.name), ['a', 'c']);
    assert.equal(w.resourceVersion, '21');
  } finally {
    await s.stop();
  }
});

test('410 in the middle of a watch: relist, and only the differences as synthetic events', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(
      listPage([cm('same', 1), cm('changed', 2), cm('gone', 3), cm('recreated', 4)], 4),
      stream([{ type: 'MODIFIED', object: cm('same', 5) }, expired('5')]),
      // meanwhile: `changed` modified, `gone` deleted, `recreated` deleted and created again, `new` added
      listPage([cm('same', 5), cm('changed', 8), cm('recreated', 9, {}, 'uid-2'), cm('new', 10)], 10),
      stream([{ type: 'MODIFIED', object: cm('new', 11) }]),
    );
    const ac = new AbortController();
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock, bookmarks: true });
    const got = await take(w, 13, ac);
    assert.deepEqual(got, [
      'ADDED same 1', 'ADDED changed 2', 'ADDED gone 3', 'ADDED recreated 4', 'BOOKMARK - 4',
      'MODIFIED same 5',
      // the relist: `same` is not repeated
      'MODIFIED changed 8', 'DELETED recreated 4', 'ADDED recreated 9', 'ADDED new 10', 'DELETED gone 3', 'BOOKMARK - 10',
      'MODIFIED new 11',
    ]);
    assert.equal(s.requests[2]!.searchParams.get('watch'), null, 'a list after the 410');
    assert.equal(s.requests[3]!.searchParams.get('resourceVersion'), '10');
  } finally {
    await s.stop();
  }
});

test('410 as the HTTP status of the watch request relists too', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 1)], 1), status(410, 'Expired', 'too old resource version: 1 (7)'), listPage([cm('a', 7)], 7), stream([{ type: 'DELETED', object: cm('a', 8) }]));
    const ac = new AbortController();
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock });
    assert.deepEqual(await take(w, 3, ac), ['ADDED a 1', 'MODIFIED a 7', 'DELETED a 8']);
  } finally {
    await s.stop();
  }
});

test('503 with Retry-After, 500, a broken stream and an empty stream: waits, then resumes from the same version', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    const retries: string[] = [];
    s.answer(
      listPage([cm('a', 1)], 1),
      status(503, 'ServiceUnavailable', 'try later', { 'retry-after': '7' }),
      status(500, 'InternalError', 'boom'),
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"MODIFIED","object":{"meta');
        setImmediate(() => res.destroy());
      },
      stream([]),
      stream([{ type: 'MODIFIED', object: cm('a', 2) }]),
    );
    const ac = new AbortController();
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), {
      signal: ac.signal,
      clock,
      random: () => 0,
      onRetry: (i) => retries.push(`${i.failures} ${i.delayMs} ${i.error instanceof Error ? i.error.constructor.name : ''}`),
    });
    assert.deepEqual(await take(w, 2, ac), ['ADDED a 1', 'MODIFIED a 2']);
    assert.deepEqual(clock.sleeps, [7000, 1600, 3200, 6400]);
    assert.deepEqual(retries.map((r) => r.split(' ').slice(0, 2).join(' ')), ['1 7000', '2 1600', '3 3200', '4 6400']);
    assert.ok(retries[2]!.endsWith('ConnectionError'), retries[2]);
    for (const u of s.requests.slice(1)) assert.equal(u.searchParams.get('resourceVersion'), '1');
  } finally {
    await s.stop();
  }
});

test('backoff after server errors grows from 0.8 s (with jitter) to at most 30 s', async () => {
  const { Backoff } = await import('../../../src/watch/backoff.js');
  const b = new Backoff(() => 0);
  const waits = Array.from({ length: 8 }, () => b.next('server'));
  assert.deepEqual(waits, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  const j = new Backoff(() => 0.999);
  assert.ok(j.next('server') >= 1590 && j.next('server') <= 3200);
  b.reset();
  assert.equal(b.next('server'), 800);
  assert.equal(b.next('server', 120), 30000, 'Retry-After is capped too');
});

test('backoff while the server is unreachable: 250 ms doubling to 1 s, at most 25% jitter, however many failures', async () => {
  const { Backoff } = await import('../../../src/watch/backoff.js');
  const b = new Backoff(() => 0);
  assert.deepEqual(Array.from({ length: 200 }, () => b.next('unreachable')).slice(0, 5), [250, 500, 1000, 1000, 1000]);
  assert.equal(b.next('unreachable'), 1000, 'after 200 failures (minutes of outage) still 1 s');
  assert.equal(b.next('server'), 800, 'a server error right after an outage starts client-go\'s backoff at its first step');
  const j = new Backoff(() => 0.999);
  for (let i = 0; i < 3; i++) j.next('unreachable');
  assert.equal(j.next('unreachable'), 1250);
});

test('an outage (refused connections): retried about every second, one onRetry per attempt, one onResume when the server is back', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    const retries: RetryInfo[] = [];
    const resumed: ResumeInfo[] = [];
    s.answer(listPage([cm('a', 1)], 1), stream([{ type: 'MODIFIED', object: cm('a', 2) }], { hold: true }));
    const ac = new AbortController();
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), {
      // Bounded in real time too: a watch that never gets the server back fails the test, not the run.
      signal: AbortSignal.any([ac.signal, AbortSignal.timeout(20_000)]),
      clock,
      random: () => 0,
      onRetry: (r) => {
        retries.push(r);
        // After 12 refused attempts the server is back, with the change made meanwhile.
        if (retries.length === 13) {
          s.answer(stream([{ type: 'MODIFIED', object: cm('a', 3) }], { hold: true }));
          s.up().catch((e: unknown) => ac.abort(e));
        }
        if (retries.length > 1000) ac.abort(new Error('the server never came back'));
      },
      onResume: (r) => resumed.push(r),
    });
    const seen: string[] = [];
    for await (const ev of w) {
      seen.push(line(ev));
      if (seen.length === 2) await s.down(); // the open stream is cut; the port refuses connections
      if (seen.length === 3) ac.abort();
    }
    const last = retries.at(-1)?.error;
    assert.deepEqual(seen, ['ADDED a 1', 'MODIFIED a 2', 'MODIFIED a 3'], `${retries.length} retries, the last after: ${last instanceof Error ? last.message : String(last)}`);
    // The cut stream had answered: client-go's first step; then refused connections: about every second.
    assert.deepEqual(retries.map((r) => r.unreachable), [false, ...Array(retries.length - 1).fill(true)]);
    assert.equal(retries[1]!.error instanceof ConnectionError && retries[1]!.error.code, 'ECONNREFUSED');
    assert.deepEqual(clock.sleeps.slice(0, 5), [800, 250, 500, 1000, 1000]);
    assert.ok(clock.sleeps.length >= 13 && clock.sleeps.slice(3).every((ms) => ms === 1000), clock.sleeps.join(' '));
    assert.deepEqual(resumed, [{ failures: retries.length, failingMs: clock.sleeps.reduce((a, b) => a + b, 0) }]);
    assert.equal(s.requests.at(-1)!.searchParams.get('resourceVersion'), '2', 'resumed from the last version seen');
  } finally {
    await s.stop();
  }
});

for (const [code, reason, text] of [
  [401, 'Unauthorized', /You must be logged in to the server/],
  [403, 'Forbidden', /Error from server \(Forbidden\): configmaps is forbidden/],
] as const) {
  test(`${code} on the watch stops with a clear error`, async () => {
    const s = await startScripted();
    try {
      const clock = virtualClock();
      s.answer(listPage([cm('a', 1)], 1), status(code, reason, code === 403 ? 'configmaps is forbidden: User "viewer" cannot watch resource "configmaps"' : 'Unauthorized'));
      const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { clock });
      const seen: string[] = [];
      await assert.rejects(async () => {
        for await (const ev of w) seen.push(line(ev));
      }, (e: unknown) => e instanceof StatusError && e.code === code && text.test(e.message));
      assert.deepEqual(seen, ['ADDED a 1']);
      assert.deepEqual(clock.sleeps, []);
    } finally {
      await s.stop();
    }
  });
}

test('a refused connection before the first answer is reported, not retried forever', async () => {
  const s = await startScripted();
  const url = s.url;
  await s.stop();
  const w = watch(clientFor(url, virtualClock()).resource(GVR, { namespaced: true }).namespace('ns'));
  await assert.rejects(async () => {
    for await (const _ of w) void _;
  }, (e: unknown) => e instanceof ConnectionError && /refused/.test(e.message));
});

test('the abort signal ends a watch blocked on a quiet stream, without an error', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    const ac = new AbortController();
    // Aborted once the watch stream is open and quiet (not after some real milliseconds: on a loaded
    // machine the watch request had not reached the server yet).
    const quiet = stream([], { hold: true });
    s.answer(listPage([cm('a', 1)], 1), async (req, res, url) => {
      await quiet(req, res, url);
      setImmediate(() => ac.abort());
    });
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock });
    const seen: WatchEvent<Unstructured>[] = [];
    for await (const ev of w) seen.push(ev);
    assert.equal(seen.length, 1);
    assert.equal(s.requests.length, 2);
  } finally {
    await s.stop();
  }
});

test('--watch-only (initialEvents: false), --resource-version and one name', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 1)], 3), stream([{ type: 'MODIFIED', object: cm('a', 4) }]));
    const ac = new AbortController();
    const client = clientFor(s.url, clock);
    const w = watch(client.resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock, initialEvents: false, name: 'a', fieldSelector: 'x=y' });
    assert.deepEqual(await take(w, 1, ac), ['MODIFIED a 4']);
    assert.equal(s.requests[0]!.searchParams.get('fieldSelector'), 'metadata.name=a,x=y');
    assert.equal(s.requests[1]!.searchParams.get('fieldSelector'), 'metadata.name=a,x=y');

    s.answer(stream([{ type: 'ADDED', object: cm('z', 9) }]));
    const ac2 = new AbortController();
    const w2 = watch(client.resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac2.signal, clock, resourceVersion: '8' });
    assert.deepEqual(await take(w2, 1, ac2), ['ADDED z 9']);
    assert.equal(s.requests[2]!.searchParams.get('resourceVersion'), '8');
    assert.equal(s.requests[2]!.searchParams.get('watch'), '1', 'no list with a resourceVersion');
  } finally {
    await s.stop();
  }
});

test('a stream still open well after its timeoutSeconds is dropped and the watch resumes from its last version', async () => {
  const s = await startScripted();
  try {
    const clock = virtualClock();
    s.answer(listPage([cm('a', 1)], 1), stream([{ type: 'MODIFIED', object: cm('a', 2) }], { hold: true }), stream([{ type: 'MODIFIED', object: cm('a', 3) }]));
    const ac = new AbortController();
    const retries: string[] = [];
    const w = watch(clientFor(s.url, clock).resource(GVR, { namespaced: true }).namespace('ns'), { signal: ac.signal, clock, onRetry: (r) => retries.push((r.error as Error).message) });
    const seen: string[] = [];
    for await (const ev of w) {
      seen.push(line(ev));
      // The held stream delivered its event and stays open: its timeoutSeconds (and grace) pass now.
      if (seen.length === 2) assert.equal(clock.fireLong(), 1, 'one dead-stream guard pending');
      if (seen.length === 3) ac.abort();
    }
    assert.deepEqual(seen, ['ADDED a 1', 'MODIFIED a 2', 'MODIFIED a 3']);
    assert.equal(s.requests[2]!.searchParams.get('resourceVersion'), '2');
    assert.match(retries[0]!, /the watch stream was still open \d+s after its timeoutSeconds=\d+/);
  } finally {
    await s.stop();
  }
});
