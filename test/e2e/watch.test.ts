/**
 * `kdyn watch` end to end, against the local API server's fault modes: streams closed every N
 * events, a 410 in the middle of a watch, a server restart with a new history, 503s during
 * reconnect. In each, the jsonl events kdyn printed, applied in order, give exactly the server's
 * final state (its own store), without a gap or a repeat. Also: bookmarks move the resume point,
 * SIGTERM flushes and exits 143.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import type { ResourceClient } from '../../src/dynamic/client.js';
import { runKdyn } from '../support/cli.js';
import { clientFor, envFor, parseJsonl, replay, serverState, sorted, startKdyn, type JsonlEvent } from './watch-helpers.js';

let env: ServerEnv;
let server: LocalApiServer;
let nsCounter = 0;

before(async () => {
  env = await startServerEnv({ seed: 'demo', watchBookmarkIntervalMs: 60_000 }, 'kdyn-e2e-watch-');
  server = env.server;
});
after(async () => {
  await env.stop();
});

/** A fresh namespace with `n` configmaps, and a handle on its configmaps. */
async function namespaceWith(n: number): Promise<{ ns: string; cms: ResourceClient }> {
  const ns = `w${++nsCounter}`;
  const client = clientFor(server);
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace(ns);
  for (let i = 0; i < n; i++) await cms.create({ metadata: { name: `cm-${i}` }, data: { v: '0' } });
  return { ns, cms };
}

/** A mix of changes: updates, deletes, creates, a delete and re-create under the same name. */
async function churn(cms: ResourceClient, round: number, count = 6): Promise<Array<{ type: string; name: string; rv?: string }>> {
  const done: Array<{ type: string; name: string; rv?: string }> = [];
  for (let i = 0; i < count; i++) {
    const upd = await cms.patch(`cm-${i}`, { data: { v: `${round}.${i}` } }, 'merge');
    done.push({ type: 'MODIFIED', name: `cm-${i}`, rv: upd.metadata!.resourceVersion });
  }
  await cms.delete('cm-1');
  done.push({ type: 'DELETED', name: 'cm-1' });
  const re = await cms.create({ metadata: { name: 'cm-1' }, data: { v: `again ${round}` } });
  done.push({ type: 'ADDED', name: 'cm-1', rv: re.metadata!.resourceVersion });
  const fresh = await cms.create({ metadata: { name: `new-${round}` }, data: { v: 'new' } });
  done.push({ type: 'ADDED', name: `new-${round}`, rv: fresh.metadata!.resourceVersion });
  await cms.delete(`cm-${count - 1}`);
  done.push({ type: 'DELETED', name: `cm-${count - 1}` });
  const back = await cms.create({ metadata: { name: `cm-${count - 1}` }, data: { v: 'back' } });
  done.push({ type: 'ADDED', name: `cm-${count - 1}`, rv: back.metadata!.resourceVersion });
  return done;
}

function same(events: JsonlEvent[], ns: string): boolean {
  return JSON.stringify(sorted(replay(events))) === JSON.stringify(sorted(serverState(server, ns)));
}

/** Watches `ns` as jsonl while `scenario` runs; returns the events after the final state was reached and SIGTERM. */
async function watchDuring(ns: string, initial: number, scenario: () => Promise<void>, setup: () => void = () => {}) {
  // Stream faults apply to watches started after they are set.
  setup();
  const k = startKdyn(['watch', 'configmaps', '-n', ns, '-o', 'jsonl'], envFor(env.dir, env.kubeconfig), env.dir);
  try {
    await k.until((o) => parseJsonl(o).length >= initial, 15_000, 'the initial list');
    await scenario();
    await k.until((o) => same(parseJsonl(o), ns), 15_000, "the server's final state");
  } finally {
    k.child.kill('SIGTERM');
  }
  const { code } = await k.exited;
  return { events: parseJsonl(k.out()), code, err: k.err() };
}

function assertNoRepeats(events: JsonlEvent[]): void {
  const seen = new Set<string>();
  for (const e of events) {
    const key = `${e.type} ${e.object.metadata!.name} ${e.object.metadata!.resourceVersion}`;
    assert.ok(!seen.has(key), `event repeated: ${key}`);
    seen.add(key);
  }
}

test('streams closed every 3 events: every change exactly once, in order, each watch resumes where the last ended', async () => {
  const { ns, cms } = await namespaceWith(6);
  server.clearLog();
  let expected: Array<{ type: string; name: string; rv?: string }> = [];
  const { events, code, err } = await watchDuring(
    ns,
    6,
    async () => {
      expected = [...(await churn(cms, 1)), ...(await churn(cms, 2))];
    },
    () => server.faults.closeWatchesAfterEvents(3),
  );
  server.faults.clear();
  assert.equal(code, 143, `SIGTERM: exit 143 (stderr: ${err})`);
  assert.deepEqual(events.slice(0, 6).map((e) => `${e.type} ${e.object.metadata!.name}`), Array.from({ length: 6 }, (_, i) => `ADDED cm-${i}`));
  const changes = events.slice(6);
  assert.deepEqual(
    changes.map((e) => `${e.type} ${e.object.metadata!.name}${e.type === 'DELETED' ? '' : ` ${e.object.metadata!.resourceVersion}`}`),
    expected.map((x) => `${x.type} ${x.name}${x.rv ? ` ${x.rv}` : ''}`),
  );
  assertNoRepeats(events);
  const watches = server.requestLog.filter((r) => r.path === `/api/v1/namespaces/${ns}/configmaps` && /(^|&)watch=/.test(r.query));
  assert.ok(watches.length >= 6, `one watch per 3 events (got ${watches.length})`);
  // Each reconnect starts from the last version the previous stream delivered (bookmarks included).
  for (const w of watches) {
    const q = new URLSearchParams(w.query);
    assert.equal(q.get('allowWatchBookmarks'), 'true');
    assert.ok(q.get('resourceVersion'), 'always from a resourceVersion');
  }
});

test('a 410 in the middle of a watch: kdyn relists and prints only what changed meanwhile', async () => {
  const { ns, cms } = await namespaceWith(6);
  server.clearLog();
  const { events, code } = await watchDuring(
    ns,
    6,
    async () => {
      await churn(cms, 1, 3);
      // The next watch request waits; meanwhile things change and the history is compacted: it gets 410.
      server.faults.add({ path: new RegExp(`^/api/v1/namespaces/${ns}/configmaps\\?.*watch=`), delayMs: 400, times: 1 });
      await cms.patch('cm-4', { data: { v: 'x' } }, 'merge');
      await new Promise((r) => setTimeout(r, 100));
      await churn(cms, 2, 4);
      server.store.compact();
      await new Promise((r) => setTimeout(r, 500));
      server.faults.clear();
      await churn(cms, 3, 5);
    },
    () => server.faults.closeWatchesAfterEvents(1),
  );
  server.faults.clear();
  assert.equal(code, 143);
  assertNoRepeats(events);
  const lists = server.requestLog.filter((r) => r.path === `/api/v1/namespaces/${ns}/configmaps` && !/(^|&)watch=/.test(r.query));
  assert.ok(lists.length >= 2, `a relist after the 410 (requests: ${lists.length} lists)`);
});

test('an expired --resource-version: one warning says that the relist which follows prints every object as ADDED', async () => {
  const { ns, cms } = await namespaceWith(2);
  const rv = (await cms.patch('cm-0', { data: { v: '1' } }, 'merge')).metadata!.resourceVersion!;
  await cms.patch('cm-1', { data: { v: '1' } }, 'merge');
  server.store.compact();
  const args = ['watch', 'configmaps', '-n', ns, '-o', 'jsonl', '--max-events', '2'];
  const expired = await runKdyn([...args, '--resource-version', rv], { env: envFor(env.dir, env.kubeconfig), cwd: env.dir });
  assert.equal(expired.code, 0, expired.err);
  assert.deepEqual(parseJsonl(expired.out).map((e) => `${e.type} ${e.object.metadata!.name}`), ['ADDED cm-0', 'ADDED cm-1']);
  assert.match(expired.err, new RegExp(`^Warning: watch of configmaps: --resource-version ${rv} has expired \\(too old resource version: ${rv} \\(\\d+\\)\\); relisting: what follows is every current object, printed as ADDED\n$`));

  // A version still in the history: only the changes since, and no warning.
  const recent = (await cms.patch('cm-0', { data: { v: '2' } }, 'merge')).metadata!.resourceVersion!;
  await cms.patch('cm-1', { data: { v: '2' } }, 'merge');
  await cms.patch('cm-0', { data: { v: '3' } }, 'merge');
  const fresh = await runKdyn([...args, '--resource-version', recent], { env: envFor(env.dir, env.kubeconfig), cwd: env.dir });
  assert.equal(fresh.code, 0, fresh.err);
  assert.deepEqual(parseJsonl(fresh.out).map((e) => `${e.type} ${e.object.metadata!.name}`), ['MODIFIED cm-1', 'MODIFIED cm-0']);
  assert.equal(fresh.err, '');
});

test('a server restart with a new history: kdyn reconnects, relists, and ends in the server state', async () => {
  const { ns, cms } = await namespaceWith(6);
  server.clearLog();
  const { events, code } = await watchDuring(ns, 6, async () => {
    await churn(cms, 1, 4);
    server.restart();
    await churn(cms, 2, 5);
    server.restart();
    await cms.delete('cm-0');
  });
  assert.equal(code, 143);
  assertNoRepeats(events);
  assert.ok(!replay(events).has('cm-0'));
});

test('503s with Retry-After during reconnect: kdyn waits, retries from the same version, loses nothing', async () => {
  const { ns, cms } = await namespaceWith(6);
  server.clearLog();
  let expected: Array<{ type: string; name: string; rv?: string }> = [];
  const { events, code, err } = await watchDuring(
    ns,
    6,
    async () => {
      expected = [...(await churn(cms, 1)), ...(await churn(cms, 2))];
    },
    () => {
      server.faults.closeWatchesAfterEvents(4);
      server.faults.add({ path: new RegExp(`^/api/v1/namespaces/${ns}/configmaps\\?.*watch=`), status: 503, headers: { 'Retry-After': '0' }, body: '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is shutting down","reason":"ServiceUnavailable","code":503}', times: 12 });
    },
  );
  server.faults.clear();
  assert.equal(code, 143);
  assert.deepEqual(
    events.slice(6).map((e) => `${e.type} ${e.object.metadata!.name}${e.type === 'DELETED' ? '' : ` ${e.object.metadata!.resourceVersion}`}`),
    expected.map((x) => `${x.type} ${x.name}${x.rv ? ` ${x.rv}` : ''}`),
  );
  const refused = server.requestLog.filter((r) => r.status === 503 && r.path === `/api/v1/namespaces/${ns}/configmaps`);
  assert.equal(refused.length, 12, 'every 503 was answered and retried');
  assert.match(err, /Warning: watch of configmaps: Error from server \(ServiceUnavailable\): the server is shutting down; retrying in 0\.0s/);
});

test('bookmarks move the resume point forward', async () => {
  const bm = await startServerEnv({ seed: 'demo', watchBookmarkIntervalMs: 50 }, 'kdyn-e2e-watch-bm-');
  try {
    const client = clientFor(bm.server);
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'quiet' } });
    const other = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo');
    const k = startKdyn(['watch', 'configmaps', '-n', 'quiet', '-o', 'jsonl'], envFor(bm.dir, bm.kubeconfig), bm.dir);
    const watchesOf = () => bm.server.requestLog.filter((r) => r.path === '/api/v1/namespaces/quiet/configmaps' && /(^|&)watch=/.test(r.query));
    try {
      const deadline = Date.now() + 10_000;
      while (watchesOf().length === 0) {
        assert.ok(Date.now() < deadline, 'kdyn started a watch');
        await new Promise((r) => setTimeout(r, 20));
      }
      const startRv = Number(new URLSearchParams(watchesOf()[0]!.query).get('resourceVersion'));
      // Changes elsewhere move the server's resourceVersion; the quiet watch only sees bookmarks.
      let last = 0;
      for (let i = 0; i < 5; i++) last = Number((await other.create({ metadata: { name: `bm-${i}` } })).metadata!.resourceVersion);
      await new Promise((r) => setTimeout(r, 300));
      bm.server.restart(); // ends the open stream: kdyn reconnects from the last version it saw
      while (watchesOf().length < 2) {
        assert.ok(Date.now() < deadline, 'kdyn reconnected');
        await new Promise((r) => setTimeout(r, 20));
      }
      const resumed = Number(new URLSearchParams(watchesOf()[1]!.query).get('resourceVersion'));
      assert.ok(resumed > startRv, `resumed from ${resumed}, after the list's ${startRv}`);
      assert.ok(resumed >= last, `resumed from the bookmark (${resumed} >= ${last})`);
      assert.equal(k.out(), '', 'bookmarks are not printed');
    } finally {
      k.child.kill('SIGTERM');
      await k.exited;
    }
  } finally {
    await bm.stop();
  }
});

test('an outage (the port refuses connections): one warning, one line when the server is back, and the change made after it is printed', async () => {
  const o = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-watch-outage-');
  const k = startKdyn(['get', 'configmaps', '-n', 'demo', '-w', '-o', 'name'], envFor(o.dir, o.kubeconfig), o.dir);
  const stderrShows = async (re: RegExp, what: string) => {
    const deadline = Date.now() + 15_000;
    while (!re.test(k.err())) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}; stderr:\n${k.err()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    await k.until((out) => out.includes('configmap/'), 15_000, 'the initial list');
    await o.server.stopListening();
    await stderrShows(/retrying every second until the server is back/, 'the outage warning');
    await o.server.listenAgain();
    const cms = clientFor(o.server).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo');
    await cms.create({ metadata: { name: 'made-after-the-outage' } });
    await k.until((out) => out.includes('configmap/made-after-the-outage\n'), 15_000, 'the change made after the outage');
    await stderrShows(/the server is back/, 'the line saying the server is back');
    const lines = k.err().trimEnd().split('\n');
    assert.equal(lines.length, 2, k.err());
    assert.match(lines[0]!, /^Warning: watch of configmaps: The connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?; retrying every second until the server is back$/);
    assert.match(lines[1]!, /^watch of configmaps: the server is back after \d+\.\ds; watching again$/);
  } finally {
    k.child.kill('SIGTERM');
    await k.exited;
    await o.stop();
  }
});

test('--request-timeout bounds each watch request: kdyn watch resumes after each one and ends at --timeout', async () => {
  const { ns, cms } = await namespaceWith(2);
  server.clearLog();
  // --timeout leaves room for a loaded machine: the three watch requests below take about 2 s.
  const k = startKdyn(['watch', 'configmaps', '-n', ns, '-o', 'jsonl', '--request-timeout=1s', '--timeout=8s'], envFor(env.dir, env.kubeconfig), env.dir);
  const watches = () => server.requestLog.filter((r) => r.path === `/api/v1/namespaces/${ns}/configmaps` && /(^|&)watch=/.test(r.query));
  try {
    await k.until((o) => parseJsonl(o).length >= 2, 15_000, 'the initial list');
    // A change after two requests reached their limit reaches kdyn through a later one. (Waited for
    // here, while kdyn runs, rather than counted after its --timeout: how many requests fit into a
    // fixed time depends on the machine's load.)
    const deadline = Date.now() + 10_000;
    while (watches().length < 3) {
      assert.ok(k.child.exitCode === null, `kdyn ended after ${watches().length} watch requests (stderr: ${k.err()})`);
      assert.ok(Date.now() < deadline, `kdyn watched again after each request's 1 s (stderr: ${k.err()})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const upd = await cms.patch('cm-0', { data: { v: 'later' } }, 'merge');
    await k.until((o) => parseJsonl(o).some((e) => e.type === 'MODIFIED' && e.object.metadata!.resourceVersion === upd.metadata!.resourceVersion), 10_000, 'the change');
  } finally {
    const early = await Promise.race([k.exited, new Promise((r) => setTimeout(r, 10_000, undefined))]);
    if (early === undefined) k.child.kill('SIGTERM');
  }
  const { code } = await k.exited;
  assert.equal(code, 0, `ended by --timeout, exit 0 (stderr: ${k.err()})`);
  assert.equal(k.err(), '', 'a request ending at its time limit is no failure: no retry warning');
  const events = parseJsonl(k.out());
  assertNoRepeats(events);
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata!.name}`), ['ADDED cm-0', 'ADDED cm-1', 'MODIFIED cm-0']);
  for (const w of watches()) {
    const q = new URLSearchParams(w.query);
    assert.equal(q.get('timeoutSeconds'), '1', 'each request asks the server for the 1 s limit');
    assert.ok(q.get('resourceVersion'), 'each resumes from a resourceVersion');
  }
});
