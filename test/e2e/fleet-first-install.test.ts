/**
 * docs/fleet.md's first install across a fleet, run as written on two clusters: the server dry run
 * of a whole input that creates a Namespace and a CRD with objects that need them fails (as
 * kubectl's does), and the documented path (a client dry run of everything; the foundation checked,
 * then applied; the rest checked, then applied) succeeds at every step.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFleetEnv, type FleetEnv } from '../support/fleet-env.js';
import { runKdyn, type Run } from '../support/cli.js';
import { docBlock } from '../support/readme-example.js';

const FOUNDATION = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: carts.shop.example.com
spec:
  group: shop.example.com
  scope: Namespaced
  names: { plural: carts, singular: cart, kind: Cart }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;
const APP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-settings
  namespace: shop
data:
  currency: EUR
---
apiVersion: shop.example.com/v1
kind: Cart
metadata:
  name: main
  namespace: shop
`;

let env: FleetEnv;
const kdyn = (args: string[]): Promise<Run> => runKdyn(args, { env: { PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir });

before(async () => {
  env = await startFleetEnv({ contexts: ['prod-east', 'prod-west'], prefix: 'kdyn-first-install-' });
  for (const [d, text] of [['foundation', FOUNDATION], ['app', APP]] as const) {
    mkdirSync(join(env.dir, d));
    writeFileSync(join(env.dir, d, 'manifests.yaml'), text);
  }
});
after(() => env?.stop());

/** `kdyn ...` commands of a shell line (`a && b`), words split, quotes removed (the block's simple forms). */
function commands(line: string): string[][] {
  return line.split(' && ').map((c) => [...c.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!)).map((w) => (assert.equal(w[0], 'kdyn', line), w.slice(1)));
}

test('a first install: the plain server dry run fails; the documented path succeeds at every step', async () => {
  const whole = await kdyn(['apply', '-f', 'foundation/', '-f', 'app/', '--context', 'prod-*', '--dry-run=server']);
  assert.equal(whole.code, 1, 'the dry run of the whole input fails, as docs/fleet.md says');
  assert.match(whole.err, /namespaces "shop" not found/);
  assert.match(whole.err, /its CustomResourceDefinition "carts\.shop\.example\.com" is only applied in this dry run/);

  const block = docBlock('docs/fleet.md', 'sh', '# A first install');
  const lines = block.split('\n').filter((l) => l.startsWith('kdyn '));
  assert.equal(lines.length, 3);
  for (const line of lines) {
    for (const args of commands(line)) {
      const r = await kdyn(args);
      assert.equal(r.code, 0, `kdyn ${args.join(' ')}:\n${r.out}${r.err}`);
    }
  }
  for (const context of env.contexts) {
    const r = await kdyn(['get', 'configmap/shop-settings', 'cart/main', '-n', 'shop', '--context', context, '-o', 'name']);
    assert.equal(r.out, 'configmap/shop-settings\ncart.shop.example.com/main\n', `${context}: ${r.err}`);
  }
});
