/**
 * The README's watch example, run as written (through the package entry point src/index.ts) against
 * the local API server with the recorded `crontabs.stable.example.com` CRD and objects, while another
 * client changes them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange } from '../../support/exchanges.js';
import { repoRoot } from '../../support/cli.js';
import { connect, watch, type Unstructured } from '../../../src/index.js';

let server: LocalApiServer;
let dir: string;

function loadRequestBody(n: number): Unstructured {
  const obj = loadExchange(n).json as Unstructured;
  const { metadata, status: _status, ...rest } = obj;
  return { ...rest, metadata: { name: metadata?.name, labels: metadata?.labels } };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kdyn-readme-watch-'));
  server = await startServer({ tls: true, seed: 'demo' });
  server.writeKubeconfig(join(dir, 'config'), { namespace: 'capture' });
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'capture' } });
  await k.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(loadRequestBody(10));
  for (const n of [14, 15, 16]) {
    await k.client.resource({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, { namespaced: true }).namespace('capture').create(loadRequestBody(n));
  }
  k.close();
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('README watch example: ADDED for what exists, then the changes, until the abort', async () => {
  const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
  assert.ok(readme.includes("for await (const ev of watch(handle, { labelSelector: 'app=a1', signal: ac.signal })) {"), 'the README still shows this example');

  // Another client changes things once the watch has printed what exists.
  const other = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  const cts = other.client.resource({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, { namespaced: true }).namespace('capture');
  const lines: string[] = [];
  const changeAfterList = (async () => {
    while (lines.length < 2) await new Promise((r) => setTimeout(r, 10));
    await cts.patch('ct3', { spec: { replicas: 7 } }, 'merge');
    await cts.delete('ct1');
  })();

  // --- the README example, verbatim apart from the kubeconfig path and console.log ---
  const k = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  const ac = new AbortController();
  const crontabs = await k.mapper.resourceFor('crontabs');
  const handle = k.client.resource(crontabs.gvr, crontabs).namespace(k.namespace);
  for await (const ev of watch(handle, { labelSelector: 'app=a1', signal: ac.signal })) {
    lines.push(`${ev.type} ${ev.object.metadata?.name} ${ev.object.metadata?.resourceVersion ? 'rv' : ''}`);
    if (ev.type === 'DELETED') ac.abort(); // ends the loop
  }
  k.close();
  // ---
  await changeAfterList;
  other.close();
  assert.deepEqual(lines, ['ADDED ct1 rv', 'ADDED ct3 rv', 'MODIFIED ct3 rv', 'DELETED ct1 rv']);
});
