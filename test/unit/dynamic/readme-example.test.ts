/**
 * The library examples of README.md and docs/library.md, taken from the pages and run as written (through the package's
 * entry point) against the local API server with the recorded `crontabs.stable.example.com` CRD.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange } from '../../support/exchanges.js';
import { docsExample, runExample } from '../../support/readme-example.js';
import { connect, NoResourceMatchError, type Unstructured } from '../../../src/index.js';

let server: LocalApiServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-readme-'));
  server = await startServer({ tls: true, seed: 'demo' });
  server.writeKubeconfig(join(dir, 'config'), { namespace: 'capture' });
  // Set up what the recordings set up: the namespace, the CRD (recording 10), three crontabs (14-16).
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'capture' } });
  const crd = JSON.parse(loadRequestBody(10)) as Unstructured;
  await k.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(crd);
  for (const n of [14, 15, 16]) {
    await k.client.resource({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, { namespaced: true }).namespace('capture').create(JSON.parse(loadRequestBody(n)) as Unstructured);
  }
  k.close();
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The object a recording created: its response body minus what the server added. */
function loadRequestBody(n: number): string {
  const obj = loadExchange(n).json as Unstructured;
  const { metadata, status: _status, ...rest } = obj;
  return JSON.stringify({ ...rest, metadata: { name: metadata?.name, labels: metadata?.labels } });
}

test('docs/library.md example: kubeconfig -> RESTMapper -> list -> get', async () => {
  const example = docsExample("const crontabs = await k.mapper.resourceFor('crontabs'); // or 'ct'");
  const r = await runExample(example, { cwd: dir, env: { HOME: dir, KUBECONFIG: join(dir, 'config') } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'ct1 */1 * * * *\nct3 */3 * * * *\n');
  assert.equal(r.err, 'Error from server (NotFound): crontabs.stable.example.com "nope" not found\n');
  const gets = server.requestLog.filter((e) => e.method === 'GET' && e.path === '/apis/stable.example.com/v1/namespaces/capture/crontabs/ct1');
  assert.equal(gets.length, 1, 'got ct1');
  assert.deepEqual(server.store.get('stable.example.com', 'crontabs', 'capture', 'ct1')?.spec?.replicas, 5);
});

test("README.md's front-page example: a CRD's short name -> list its objects in a namespace", async () => {
  const example = docsExample("const rockets = await k.mapper.resourceFor('rkt');");
  const r = await runExample(example, { cwd: dir, env: { HOME: dir, KUBECONFIG: join(dir, 'config') } });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.split('\n').filter(Boolean).sort(), ['electron', 'falcon'], 'the demo seed\'s two rockets in namespace demo');
  assert.equal(r.err, '');
});

test('an unknown name is a NoResourceMatchError', async () => {
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  try {
    await assert.rejects(k.mapper.resourceFor('crontabz'), (e: unknown) => e instanceof NoResourceMatchError && /doesn't have a resource type "crontabz"/.test((e as Error).message));
  } finally {
    k.close();
  }
});
