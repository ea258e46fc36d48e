/**
 * The ApplySet example of docs/library.md, taken from the page and run as written (through the
 * package's entry point) against the local API server: a first run applies two objects into the
 * set, a second with one object prunes the other.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { configMap, manifestFile } from '../../e2e/apply-helpers.js';
import { docsExample, runExample } from '../../support/readme-example.js';

let env: ServerEnv;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-applyset-lib-');
});
after(() => env.stop());

test('docs/library.md ApplySet example: applySet over a connect() result applies, then prunes what the input dropped', async () => {
  const example = docsExample("const set = await applySet(objects, k, { parent: 'configmap/app'");
  const kubeconfig = join(env.dir, 'kubeconfig');
  const run = () => runExample(example, { cwd: env.dir, env: { HOME: env.dir, KUBECONFIG: kubeconfig } });
  manifestFile(env.dir, 'app.yaml', [configMap('web'), configMap('old')]);
  const first = await run();
  assert.equal(first.code, 0, first.err);
  assert.equal(first.out, 'created web\ncreated old\n');
  manifestFile(env.dir, 'app.yaml', [configMap('web')]);
  const second = await run();
  assert.equal(second.code, 0, second.err);
  assert.equal(second.out, 'unchanged web\npruned ConfigMap old\n');
  assert.equal(env.server.store.get('', 'configmaps', 'demo', 'old'), undefined);
  const parent = env.server.store.get('', 'configmaps', 'demo', 'app')!;
  assert.match(parent.metadata.annotations!['applyset.kubernetes.io/tooling']!, /^kdyn\//);
  assert.equal(parent.metadata.annotations!['applyset.kubernetes.io/contains-group-kinds'], 'ConfigMap');
});
