/**
 * The README's library example, run as written (through the package entry point src/index.ts)
 * against the local API server with the recorded `crontabs.stable.example.com` CRD.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange } from '../../support/exchanges.js';
import { connect, StatusError, NoResourceMatchError, type Unstructured } from '../../../src/index.js';

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

test('README example: kubeconfig -> RESTMapper -> list -> get', async () => {
  const lines: string[] = [];
  // --- the README example, verbatim apart from the kubeconfig path and console.log ---
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  try {
    const crontabs = await k.mapper.resourceFor('crontabs'); // or 'ct', 'CronTab', 'crontabs.stable.example.com'
    const handle = k.client.resource(crontabs.gvr, crontabs).namespace(k.namespace);

    for await (const page of handle.list({ limit: 2, labelSelector: 'app=a1' })) {
      for (const ct of page.items) lines.push(`${ct.metadata?.name} ${(ct.spec as { cronSpec?: string }).cronSpec}`);
    }
    const ct1 = await handle.get('ct1');
    lines.push(`${ct1.kind} ${ct1.metadata?.resourceVersion ? 'has a resourceVersion' : ''}`);
    await handle.patch('ct1', { spec: { replicas: 5 } }, 'merge');
    await handle.get('nope').catch((e) => {
      if (e instanceof StatusError && e.reason === 'NotFound') lines.push(e.message);
      else throw e;
    });
  } finally {
    k.close();
  }
  // ---
  assert.deepEqual(lines, [
    'ct1 */1 * * * *',
    'ct3 */3 * * * *',
    'CronTab has a resourceVersion',
    'Error from server (NotFound): crontabs.stable.example.com "nope" not found',
  ]);
});

test('an unknown name is a NoResourceMatchError', async () => {
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  try {
    await assert.rejects(k.mapper.resourceFor('crontabz'), (e: unknown) => e instanceof NoResourceMatchError && /doesn't have a resource type "crontabz"/.test((e as Error).message));
  } finally {
    k.close();
  }
});
