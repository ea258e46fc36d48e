/**
 * The delete example of docs/library.md, taken from the page and run as written (through the
 * package's entry point) against the local API server: the objects of one file deleted (and waited
 * for), the one that is not there reported as its error.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { manifestFile } from '../../e2e/apply-helpers.js';
import { docsExample, runExample } from '../../support/readme-example.js';

let env: ServerEnv;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-delete-lib-');
  manifestFile(env.dir, 'app.yaml', [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-there' } },
  ]);
});
after(() => env.stop());

test('docs/library.md delete example: decodeManifests + deleteInContexts on the current context', async () => {
  const example = docsExample('for await (const ev of deleteInContexts(');
  const kubeconfig = join(env.dir, 'kubeconfig-demo');
  env.server.writeKubeconfig(kubeconfig, { namespace: 'demo' });
  assert.ok(env.server.store.get('', 'configmaps', 'demo', 'app-config'), 'the seed has it');
  const r = await runExample(example, { cwd: env.dir, env: { HOME: env.dir, KUBECONFIG: kubeconfig } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'configmap "app-config" deleted\n');
  assert.match(r.err, /configmaps "not-there" not found\n$/);
  assert.equal(env.server.store.get('', 'configmaps', 'demo', 'app-config'), undefined, 'gone');
});
