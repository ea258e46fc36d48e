/**
 * The server-side apply requests on the wire, answered by a small hand-made server with the
 * recorded v1.32 responses (exchanges 34-43): method, path, query (kubectl's parameters in Go's
 * sorted order), Content-Type and body of each PATCH, and what the executor makes of each answer
 * (created / configured / unchanged, conflicts naming manager and field, dry runs, server errors).
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadExchange, type Exchange } from '../../support/exchanges.js';
import { createTransport } from '../../../src/transport/http.js';
import { DynamicClient } from '../../../src/dynamic/client.js';
import { DeferredRESTMapper } from '../../../src/restmapper/deferred.js';
import { staticDiscovery } from '../../../src/discovery/static.js';
import { applyObjects, type ApplyOptions } from '../../../src/apply/apply.js';
import { failureReason } from '../../../src/apply/conflict.js';
import { StatusError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/log.js';
import { systemClock } from '../../../src/core/clock.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { snapshot } from '../restmapper/snapshot.js';

interface Seen {
  method: string;
  path: string;
  query: string;
  contentType: string;
  body: string;
}

let server: http.Server;
let url: string;
const seen: Seen[] = [];
/** Answers by `METHOD path`; a missing GET answers 404, a missing PATCH 500. */
type Answer = { status: number; json?: unknown };
const answers = new Map<string, Answer | ((query: string, body: string) => Answer)>();

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      seen.push({ method: req.method!, path: u.pathname, query: u.search.slice(1), contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() });
      const entry = answers.get(`${req.method} ${u.pathname}`);
      const a = typeof entry === 'function' ? entry(u.search.slice(1), seen.at(-1)!.body) : entry;
      const status = a?.status ?? (req.method === 'GET' ? 404 : 500);
      const json = a?.json ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found', details: { name: u.pathname.split('/').pop() } };
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
  answers.clear();
});

const discovery = staticDiscovery(
  snapshot([
    { name: '', versions: [['v1', [{ name: 'namespaces', kind: 'Namespace', namespaced: false }, { name: 'configmaps', kind: 'ConfigMap' }]]] },
    { name: 'stable.example.com', versions: [['v1', [{ name: 'crontabs', kind: 'CronTab' }]]] },
  ]),
);

function deps() {
  const transport = createTransport(
    { server: url, tls: { insecure: false }, credentials: tokenProvider('t'), namespace: 'default', namespaceExplicit: false, source: 'flags', files: [] },
    { timeoutMs: 0, env: {}, logger: silentLogger, clock: systemClock },
  );
  return { transport, client: new DynamicClient(transport), mapper: new DeferredRESTMapper(discovery, { warn: () => {} }) };
}

async function apply(objects: Unstructured[], opts: ApplyOptions = {}) {
  const d = deps();
  try {
    return await applyObjects(objects, d, { namespace: 'capture', ...opts });
  } finally {
    d.transport.close();
  }
}

/** The object the recordings applied (their responses show it: cronSpec and replicas). */
const crontab = (replicas: number): Unstructured => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'applied' }, spec: { cronSpec: '* * * * */5', replicas } });
const CRONTAB_PATH = '/apis/stable.example.com/v1/namespaces/capture/crontabs/applied';

function answer(n: number): Exchange {
  const ex = loadExchange(n);
  answers.set(`${ex.method} ${ex.path.split('?')[0]}`, ex);
  return ex;
}

test('create (recording 34): one GET, then PATCH with kubectl\'s parameters, apply-patch+yaml, the object as JSON', async () => {
  const ex = answer(34);
  const r = await apply([crontab(2)]);
  assert.equal(r.succeeded, 1, String(r.results[0]!.error));
  assert.equal(r.results[0]!.status, 'created');
  assert.deepEqual(seen.map((s) => `${s.method} ${s.path}`), [`GET ${CRONTAB_PATH}`, `PATCH ${CRONTAB_PATH}`]);
  assert.equal(ex.path.split('?')[0], CRONTAB_PATH);
  const patch = seen[1]!;
  assert.equal(patch.query, 'fieldManager=kdyn&fieldValidation=Strict&force=false');
  assert.equal(patch.contentType, ex.requestHeaders['content-type']);
  assert.deepEqual(JSON.parse(patch.body), { ...crontab(2), metadata: { name: 'applied', namespace: 'capture' } });
  assert.equal(r.results[0]!.object?.metadata?.resourceVersion, '245');
});

test('same resourceVersion before and after: unchanged; a new one: configured (recordings 35, 37)', async () => {
  const same = loadExchange(35);
  answers.set(`GET ${CRONTAB_PATH}`, same);
  answers.set(`PATCH ${CRONTAB_PATH}`, same);
  assert.equal((await apply([crontab(3)])).results[0]!.status, 'unchanged');
  answers.set(`PATCH ${CRONTAB_PATH}`, loadExchange(37));
  assert.equal((await apply([crontab(3)])).results[0]!.status, 'configured');
  // Without the prior read (-o json and the library's choice): no GET, status "applied".
  seen.length = 0;
  const r = await apply([crontab(3)], { detectUnchanged: false });
  assert.equal(r.results[0]!.status, 'applied');
  assert.deepEqual(seen.map((s) => s.method), ['PATCH']);
});

test('conflict (recording 36): failed, the manager and the field named, the --force-conflicts hint; force sends force=true (37)', async () => {
  answer(36);
  const r = await apply([crontab(7)], { fieldManager: 'other' });
  assert.equal(r.failed, 1);
  assert.equal(seen.at(-1)!.query, 'fieldManager=other&fieldValidation=Strict&force=false');
  assert.equal(failureReason(r.results[0]!.error), 'Apply failed with 1 conflict: conflict with "kdyn": .spec.replicas (rerun with --force-conflicts to take these fields over, or with --field-manager=kdyn to apply as "kdyn", which owns them)');
  answer(37);
  const f = await apply([crontab(7)], { fieldManager: 'other', force: true });
  assert.equal(f.succeeded, 1);
  assert.equal(seen.at(-1)!.query, 'fieldManager=other&fieldValidation=Strict&force=true');
});

test('several conflicts: one line, grouped by manager', () => {
  const e = loadExchange(36).json as { details: { causes: unknown[] } };
  e.details.causes.push({ reason: 'FieldManagerConflict', message: 'conflict with "kdyn"', field: '.spec.cronSpec' }, { reason: 'FieldManagerConflict', message: 'conflict with "helm" using v1', field: '.spec.image' });
  const msg = failureReason(new StatusError(e as never, 409));
  assert.equal(msg, 'Apply failed with 3 conflicts: conflict with "kdyn": .spec.replicas, .spec.cronSpec; conflict with "helm" using v1: .spec.image (rerun with --force-conflicts to take these fields over)', 'two managers: no --field-manager to offer');
  const update = loadExchange(36).json as { details: { causes: Array<{ message: string }> } };
  update.details.causes[0]!.message = 'conflict with "helm" using v1';
  assert.match(failureReason(new StatusError(update as never, 409)), /\(rerun with --force-conflicts to take these fields over\)$/, 'an Update manager is not an applier to apply as');
});

test('server dry run (recording 38): dryRun=All, in kubectl\'s (sorted) order; the result is marked', async () => {
  const ex = answer(38);
  const obj = { ...crontab(2), metadata: { name: 'dry' } };
  const r = await apply([obj], { dryRun: true });
  // Go's url.Values.Encode sorts the keys; the recording's parameters are all there.
  assert.equal(seen.at(-1)!.query, 'dryRun=All&fieldManager=kdyn&fieldValidation=Strict&force=false');
  for (const p of ex.path.split('?')[1]!.split('&')) assert.ok(seen.at(-1)!.query.split('&').includes(p), p);
  assert.equal(r.results[0]!.status, 'created');
  assert.equal(r.results[0]!.dryRun, true);
});

test('server errors keep the server\'s message (recordings 39, 41, 43); the other objects are still applied', async () => {
  answer(39);
  answer(42);
  const bad = { ...crontab(2), metadata: { name: 'bad' } };
  const ns: Unstructured = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'applied-ns', namespace: 'stray', labels: { team: 'x' } } };
  const r = await apply([bad, ns]);
  assert.equal(r.failed, 1);
  assert.equal(r.succeeded, 1);
  assert.match(failureReason(r.results[0]!.error), /^failed to create typed patch object .*expected numeric/);
  // Recording 42: a cluster-scoped object's stray namespace is not sent.
  const nsPatch = seen.find((s) => s.method === 'PATCH' && s.path === '/api/v1/namespaces/applied-ns')!;
  assert.deepEqual(JSON.parse(nsPatch.body).metadata, { name: 'applied-ns', labels: { team: 'x' } });
  // Namespaces go first (their stage), the crontab after.
  assert.deepEqual(seen.filter((s) => s.method === 'PATCH').map((s) => s.path.split('/').pop()), ['applied-ns', 'bad']);
  for (const n of [41, 43]) {
    const ex = loadExchange(n);
    assert.equal(failureReason(new StatusError(ex.json as never, ex.status)), (ex.json as { message: string }).message);
  }
});

test('many objects of one collection: one LIST (stopping after the last wanted name) instead of a GET each', async () => {
  const names = Array.from({ length: 20 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
  // The namespace holds every second one (rv 5) plus names sorting after them (never needed).
  const items = [...names.filter((_, i) => i % 2 === 0), 'zz-1', 'zz-2'].map((name) => ({ metadata: { name, namespace: 'capture', resourceVersion: '5' } }));
  answers.set('GET /api/v1/namespaces/capture/configmaps', (query) => {
    const page = query.includes('continue=p2') ? items.slice(11) : items.slice(0, 11); // page 1 ends with zz-1: past cm-19
    return { status: 200, json: { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9', ...(query.includes('continue') ? {} : { continue: 'p2' }) }, items: page } };
  });
  for (const [i, name] of names.entries()) {
    answers.set(`PATCH /api/v1/namespaces/capture/configmaps/${name}`, { status: 200, json: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: i % 4 === 0 ? '5' : '8' } } });
  }
  const r = await apply(names.map((name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })));
  assert.deepEqual(seen.filter((s) => s.method === 'GET').map((s) => `${s.path}?${s.query}`), ['/api/v1/namespaces/capture/configmaps?limit=500']);
  assert.equal(seen.filter((s) => s.method === 'PATCH').length, 20);
  // absent before: created; rv kept: unchanged; rv moved: configured
  assert.deepEqual(r.results.map((x) => x.status), names.map((_, i) => (i % 2 === 1 ? 'created' : i % 4 === 0 ? 'unchanged' : 'configured')));
});
