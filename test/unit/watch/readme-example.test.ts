/**
 * The watch example of docs/library.md, taken from the page and run as written (through the package's entry
 * point) against the local API server with the recorded `crontabs.stable.example.com` CRD and
 * objects, while another client changes them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange } from '../../support/exchanges.js';
import { docsExample, runExample } from '../../support/readme-example.js';
import { connect, type Unstructured } from '../../../src/index.js';

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

test('docs/library.md watch example: ADDED for what exists, then the changes, until the abort', async () => {
  const example = docsExample("for await (const ev of watch(handle, { labelSelector: 'app=a1', signal: ac.signal })) {");
  // Another client changes things once the watch has printed what exists.
  const other = await connect({ kubeconfig: join(dir, 'config'), env: { HOME: dir } });
  const cts = other.client.resource({ group: 'stable.example.com', version: 'v1', resource: 'crontabs' }, { namespaced: true }).namespace('capture');
  let printed = 0;
  let changes: Promise<void> | undefined;
  const r = await runExample(example, {
    cwd: dir,
    env: { HOME: dir, KUBECONFIG: join(dir, 'config') },
    onLine: () => {
      if (++printed === 2) {
        changes = (async () => {
          await cts.patch('ct3', { spec: { replicas: 7 } }, 'merge');
          await cts.delete('ct1');
        })();
      }
    },
  });
  await changes;
  other.close();
  assert.equal(r.code, 0, r.err);
  // Each line is `<type> <name> <resourceVersion>`.
  const lines = r.out.split('\n').filter((l) => l).map((l) => l.replace(/ \d+$/, ' rv'));
  assert.deepEqual(lines, ['ADDED ct1 rv', 'ADDED ct3 rv', 'MODIFIED ct3 rv', 'DELETED ct1 rv']);
});
