/**
 * docs/controller-example.md's controller, taken from the page and run as written against a real
 * kube-apiserver (test/support/controller-example.ts): real server-side apply, a real status
 * subresource, real generations.
 */
import { test, describe, before, after } from 'node:test';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { connect, type Connection } from '../../src/connect.js';
import { runControllerScenario } from '../support/controller-example.js';
import { assertControllerRun } from '../support/controller-checks.js';
import { installCrd } from './crd-fixtures.js';
import { SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';

describe('the controller example on a real kube-apiserver', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let k: Connection;
  before(async () => {
    env = await startRealEnv();
    k = await connect({ kubeconfig: env.cluster.kubeconfigs.token, env: { HOME: join(env.dir, 'home-test') } });
  });
  after(async () => {
    k?.close();
    await env?.stop();
  });

  test('ConfigMap and status per Note, changes reconciled, SIGTERM drains and exits 0', async () => {
    const ns = await env.namespace('notes');
    const home = join(env.dir, 'home-controller');
    mkdirSync(home);
    const result = await runControllerScenario({
      k,
      namespace: ns,
      dir: home,
      env: { HOME: home, KUBECONFIG: env.cluster.kubeconfigs.token },
      installCrd: (crd) => installCrd(env, crd),
    });
    assertControllerRun(result, ns);
  });
});
