/**
 * The README's apply example, run as written (through the package entry point src/index.ts) against
 * the local API server: a CRD and its instance decoded from one file and applied in one call.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { simpleCrd } from '../../support/apiserver/crds.js';
import { manifestFile } from '../../e2e/apply-helpers.js';
import { connect, decodeManifests, applyManifests, type ApplyReport } from '../../../src/index.js';

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

test('README example: decodeManifests + applyManifests over a connect() result', async () => {
  const lines: string[] = [];
  const console = { log: (...a: unknown[]) => lines.push(a.join(' ')) };
  let report: ApplyReport | undefined;
  // --- the README example, with its file and environment pointed at the test's ---
  const k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir }, flags: { namespace: 'demo' } });
  try {
    const { manifests, problems } = decodeManifests(readFileSync(join(env.dir, 'app.yaml'), 'utf8'), 'app.yaml');
    if (problems.length) throw new Error(problems.join('\n')); // nothing sent
    report = await applyManifests(manifests, k, { fieldManager: 'my-tool', namespace: k.namespace, concurrency: 16 });
    for (const r of report.results) console.log(r.status, r.object?.metadata?.name ?? '', r.error?.message ?? '');
  } finally {
    k.close();
  }
  // ---
  assert.deepEqual(lines, ['created tools.lib.kdyn.dev ', 'created hammer ', 'created tool-config ']);
  assert.equal(report!.succeeded, 3);
  const tool = env.server.store.get('lib.kdyn.dev', 'tools', 'demo', 'hammer');
  assert.deepEqual(tool?.spec, { weight: 2 });
  assert.equal((tool?.metadata.managedFields as Array<{ manager: string }>)[0]!.manager, 'my-tool');
});
