/**
 * diff sends each object's dry run without waiting for its live version (src/diff/diff.ts): against
 * the local API server holding the collection's LIST (delayed on the server's own clock, which the
 * test moves), the dry-run applies of the objects being worked on (8 at once) arrive while the LIST is held; once it is answered the report is
 * what it always was (live from the LIST, merged from the dry runs), with one LIST and one PATCH per
 * object, no GET. A live read that fails is the answer even though the dry run was sent beside it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { connect, type Connection } from '../../../src/connect.js';
import { diff, DEFAULT_DIFF_CONCURRENCY } from '../../../src/diff/diff.js';
import { StatusError } from '../../../src/core/errors.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';

const settle = () => new Promise((r) => setImmediate(r));
const N = 20;
const cm = (i: number, release: string): Unstructured => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `pipe-${String(i).padStart(2, '0')}`, namespace: 'demo' }, data: { release } });

let env: ServerEnv;
let k: Connection;
const serverClock = new FakeClock();

before(async () => {
  env = await startServerEnv({ seed: 'demo', clock: serverClock }, 'kdyn-diff-pipe-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
  const h = k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('demo');
  for (let i = 0; i < N; i++) await h.patch(cm(i, 'v1').metadata!.name!, JSON.stringify(cm(i, 'v1')), 'apply', { fieldManager: 'kdyn' });
});
after(async () => {
  k?.close();
  await env?.stop();
});

test('the dry runs are sent while the LIST of the live objects is held; the report is the same', async () => {
  env.server.clearLog();
  env.server.faults.add({ method: 'GET', path: /^\/api\/v1\/namespaces\/demo\/configmaps\?/, delayMs: 3_600_000, times: 1 });
  const dryRuns = () => env.server.requestLog.filter((e) => e.method === 'PATCH' && /dryRun=All/.test(e.query)).length;
  const input = Array.from({ length: N }, (_, i) => cm(i, i % 10 === 0 ? 'v2' : 'v1'));
  let done = false;
  const running = diff(input, k).finally(() => (done = true));
  // The LIST is at the server, which holds it.
  while (serverClock.pending === 0) await settle();
  // As many as are worked on at once (8): each waits for the LIST only once its dry run is sent.
  for (let turns = 0; turns < 5_000 && dryRuns() < DEFAULT_DIFF_CONCURRENCY; turns++) await settle();
  assert.equal(dryRuns(), DEFAULT_DIFF_CONCURRENCY, 'the dry runs were sent before the live objects arrived');
  assert.equal(done, false, 'the diff waits for the live objects');
  serverClock.advance(3_600_000);
  const r = await running;
  assert.deepEqual(r.objects.map((o) => o.action), input.map((_, i) => (i % 10 === 0 ? 'changed' : 'unchanged')));
  assert.match(r.objects[0]!.texts.live, /release: v1/);
  assert.match(r.objects[0]!.texts.merged, /release: v2/);
  const requests = env.server.requestLog.filter((e) => e.path.startsWith('/api/v1/namespaces/demo/configmaps'));
  assert.deepEqual(
    [requests.filter((e) => e.method === 'GET' && e.path.endsWith('/configmaps')).length, requests.filter((e) => e.method === 'GET' && !e.path.endsWith('/configmaps')).length, requests.filter((e) => e.method === 'PATCH').length],
    [1, 0, N],
    'one LIST, no GET, one dry run per object',
  );
});

test('a live read that fails is the error, though the dry run beside it succeeded', async () => {
  env.server.faults.clear();
  env.server.faults.failNext({ status: 500, method: 'GET', path: '/api/v1/namespaces/demo/configmaps/pipe-00', times: 10 });
  await assert.rejects(diff([cm(0, 'v2')], k), (e) => e instanceof StatusError && e.code === 500);
  env.server.faults.clear();
});
