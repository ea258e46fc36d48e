/** The pure planner: stages, the input's own CRD declarations, kubectl's namespace rules, bounded runs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declaredKinds, objectKey, placeNamespace, planStages, stageOf } from '../../../src/apply/plan.js';
import { OrderedEmitter, runBounded } from '../../../src/apply/bounded.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): Unstructured => ({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } });
const crd = (group: string, kind: string, plural: string, scope: string): Unstructured => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: { group, scope, names: { kind, plural }, versions: [{ name: 'v1', served: true, storage: true }, { name: 'v0', served: false, storage: false }] },
});

test('stages: Namespaces, then CRDs, then the rest, each in input order', () => {
  const input = [obj('example.com/v1', 'Gadget', 'g1', 'ns1'), crd('example.com', 'Gadget', 'gadgets', 'Namespaced'), obj('v1', 'Namespace', 'ns1'), obj('v1', 'ConfigMap', 'c'), obj('example.com/v1', 'Namespace', 'not-core')];
  assert.deepEqual(input.map(stageOf), ['resources', 'crds', 'namespaces', 'resources', 'resources']);
  assert.deepEqual(planStages(input), [
    { stage: 'namespaces', indexes: [2] },
    { stage: 'crds', indexes: [1] },
    { stage: 'resources', indexes: [0, 3, 4] },
  ]);
  assert.deepEqual(planStages([obj('v1', 'ConfigMap', 'c')]), [{ stage: 'resources', indexes: [0] }]);
});

test('declared kinds: scope, plural and served versions of the input\'s CRDs', () => {
  const d = declaredKinds([crd('example.com', 'Gadget', 'gadgets', 'Namespaced'), crd('example.com', 'Pad', 'pads', 'Cluster'), obj('v1', 'ConfigMap', 'c')]);
  assert.deepEqual(d.get('example.com/Gadget'), { group: 'example.com', kind: 'Gadget', plural: 'gadgets', namespaced: true, versions: ['v1'], crdName: 'gadgets.example.com' });
  assert.equal(d.get('example.com/Pad')?.namespaced, false);
  assert.equal(d.size, 2);
});

test('namespace rules as kubectl: fill, keep, strip for cluster scope, refuse a mismatch with -n', () => {
  const cases: Array<[Unstructured, boolean, { namespace: string; enforce: boolean }, string | undefined, string | undefined]> = [
    [obj('v1', 'ConfigMap', 'a'), true, { namespace: 'ctx', enforce: false }, 'ctx', undefined],
    [obj('v1', 'ConfigMap', 'a', 'own'), true, { namespace: 'ctx', enforce: false }, 'own', undefined],
    [obj('v1', 'ConfigMap', 'a', 'own'), true, { namespace: 'own', enforce: true }, 'own', undefined],
    [obj('v1', 'ConfigMap', 'a', 'other'), true, { namespace: 'foo', enforce: true }, undefined,
      'the namespace from the provided object "other" does not match the namespace "foo". You must pass \'--namespace=other\' to perform this operation.'],
    [obj('v1', 'Namespace', 'n', 'stray'), false, { namespace: 'foo', enforce: true }, undefined, undefined],
  ];
  for (const [o, namespaced, rule, ns, err] of cases) {
    const before = JSON.stringify(o);
    const p = placeNamespace(o, namespaced, rule);
    assert.equal(JSON.stringify(o), before, 'input not mutated');
    if (err) {
      assert.deepEqual(p, { error: err });
      continue;
    }
    assert.ok(!('error' in p));
    assert.equal(p.namespace, ns);
    assert.equal(p.object.metadata?.namespace, ns);
    if (!namespaced) assert.ok(!('namespace' in p.object.metadata!), 'stray namespace removed');
  }
  assert.equal(objectKey(obj('apps/v1', 'Deployment', 'd'), 'x'), 'apps/Deployment/x/d');
});

test('runBounded: at most `limit` at once, started in order, none started after stop', async () => {
  let active = 0;
  let peak = 0;
  const started: number[] = [];
  let stop = false;
  const gates = new Map<number, () => void>();
  const run = runBounded([0, 1, 2, 3, 4, 5], 2, async (i) => {
    started.push(i);
    active++;
    peak = Math.max(peak, active);
    await new Promise<void>((r) => gates.set(i, r));
    active--;
  }, () => stop);
  const tick = () => new Promise((r) => setImmediate(r));
  await tick();
  assert.deepEqual(started, [0, 1]);
  gates.get(1)!();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  stop = true;
  gates.get(0)!();
  gates.get(2)!();
  assert.deepEqual(await run, [3, 4, 5]);
  assert.equal(peak, 2);
});

test('OrderedEmitter: results in input order whatever order they finish in', () => {
  const out: string[] = [];
  const e = new OrderedEmitter<string>([0, 1, 2, 3], (v) => out.push(v));
  e.set(2, 'c');
  e.set(1, 'b');
  assert.deepEqual(out, []);
  e.set(0, 'a');
  assert.deepEqual(out, ['a', 'b', 'c']);
  e.set(3, 'd');
  assert.deepEqual(out, ['a', 'b', 'c', 'd']);
});
