/**
 * The apply example of docs/library.md, taken from the page and run as written (through the package's entry
 * point) against the local API server: a CRD and its instance decoded from one file and applied in one call.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { simpleCrd } from '../../support/apiserver/crds.js';
import { manifestFile } from '../../e2e/apply-helpers.js';
import { docsExample, runExample } from '../../support/readme-example.js';

let env: ServerEnv;
before(async () => {
  env = await startServerEnv({ seed: 'demo', crdEstablishDelayMs: 50 }, 'kdyn-apply-lib-');
  manifestFile(env.dir, 'app.yaml', [
    simpleCrd({ group: 'lib.kdyn.dev', plural: 'tools', kind: 'Tool' }),
    { apiVersion: 'lib.kdyn.dev/v1', kind: 'Tool', metadata: { name: 'hammer' }, spec: { weight: 2 } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tool-config' }, data: { a: 'b' } },
  ]);
});
after(() => env.stop());

test('docs/library.md apply example: decodeManifests + applyManifests over a connect() result', async () => {
  const example = docsExample("report = await applyManifests(manifests, k, { fieldManager: 'my-tool'");
  // The example applies ./app.yaml into the kubeconfig's namespace.
  const kubeconfig = join(env.dir, 'kubeconfig-demo');
  env.server.writeKubeconfig(kubeconfig, { namespace: 'demo' });
  const r = await runExample(example, { cwd: env.dir, env: { HOME: env.dir, KUBECONFIG: kubeconfig } });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'created tools.lib.kdyn.dev \ncreated hammer \ncreated tool-config \n');
  const tool = env.server.store.get('lib.kdyn.dev', 'tools', 'demo', 'hammer');
  assert.deepEqual(tool?.spec, { weight: 2 });
  assert.equal((tool?.metadata.managedFields as Array<{ manager: string }>)[0]!.manager, 'my-tool');
  assert.equal(env.server.store.get('', 'configmaps', 'demo', 'tool-config')?.data?.a, 'b');
});
