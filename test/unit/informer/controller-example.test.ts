/**
 * docs/controller-example.md's controller, taken from the page and run as written against the local
 * API server (test/support/controller-example.ts): each Note gets its ConfigMap (server-side apply,
 * owned by the Note) and its status, changes made while it runs are reconciled, SIGTERM drains and stops it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Connection } from '../../../src/connect.js';
import { startServerEnv, type ServerEnv } from '../../support/server-env.js';
import { runControllerScenario } from '../../support/controller-example.js';
import { assertControllerRun } from '../../support/controller-checks.js';

let env: ServerEnv;
let k: Connection;

before(async () => {
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-controller-');
  k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir } });
  await k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'notes' } });
});
after(async () => {
  k?.close();
  await env?.stop();
});

test('the controller example: ConfigMap and status per Note, changes reconciled, SIGTERM drains and exits 0', async () => {
  const result = await runControllerScenario({
    k,
    namespace: 'notes',
    dir: env.dir,
    env: { HOME: env.dir, KUBECONFIG: env.kubeconfig },
    installCrd: async (crd) => {
      await k.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }).create(crd);
    },
  });
  assertControllerRun(result, 'notes');
});
