/**
 * When a dry-run apply can be skipped (src/diff/unchanged.ts): the manager's Apply entry owns
 * exactly the applied fields and the live object holds the applied values; keyed and set lists
 * matched to their entries, atomic lists and maps compared whole, anything unproven sends the object.
 * The field sets are as a real kube-apiserver v1.32 recorded them for these objects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appliesAsIs } from '../../../src/diff/unchanged.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

const applied: Unstructured = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' }, annotations: { a: 'b' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', args: ['a', 'b'], ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] }] } },
  },
};
const fieldsV1 = {
  'f:metadata': { 'f:annotations': { 'f:a': {} }, 'f:labels': { 'f:app': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:selector': {},
    'f:template': {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:args': {}, 'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } },
    },
  },
};
const entry = { manager: 'kdyn', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-11-27T06:42:59Z', fieldsType: 'FieldsV1', fieldsV1 };

/** The live object as the server keeps it: defaults, status, server metadata, other managers. */
function live(change: (o: any) => void = () => undefined, managedFields: unknown[] = [entry, { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } }]): Unstructured {
  const o = structuredClone(applied) as any;
  Object.assign(o.metadata, { uid: 'u', resourceVersion: '7', generation: 1, creationTimestamp: '2026-11-27T06:42:59Z', managedFields });
  o.spec.strategy = { type: 'RollingUpdate' };
  o.spec.template.spec.containers[0].ports[0].protocol = 'TCP';
  o.spec.template.spec.containers[0].imagePullPolicy = 'Always';
  o.status = { replicas: 0 };
  change(o);
  return o;
}

test('the same fields and values under the same manager: applies as is', () => {
  assert.equal(appliesAsIs(applied, live(), 'kdyn'), true);
});

test('anything else sends the object', () => {
  const cases: Array<[string, Unstructured | null, Unstructured, string?]> = [
    ['no live object', null, applied],
    ['another manager', live(), applied, 'kubectl'],
    ['a changed value', live((o) => (o.spec.replicas = 3)), applied],
    ['a changed value in a keyed list item', live((o) => (o.spec.template.spec.containers[0].env[0].value = '2')), applied],
    ['an atomic list in another order', live((o) => (o.spec.template.spec.containers[0].args = ['b', 'a'])), applied],
    ['an atomic map with another value', live((o) => (o.spec.selector.matchLabels.app = 'x')), applied],
    ['a live list item nobody applied', live((o) => o.spec.template.spec.containers.push({ name: 'sidecar', image: 'x' })), applied],
    ['a field the manager owns that the input dropped', live(), { ...applied, metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } } }],
    ['a field the input adds', live(), { ...applied, data: { k: 'v' } } as Unstructured],
    ['an Update entry only', live(() => undefined, [{ ...entry, operation: 'Update' }]), applied],
    ['two Apply entries', live(() => undefined, [entry, { ...entry, subresource: undefined }]), applied],
    ['another apiVersion of the entry', live(() => undefined, [{ ...entry, apiVersion: 'apps/v1beta1' }]), applied],
    ['a resourceVersion in the input', live(), { ...applied, metadata: { ...applied.metadata, resourceVersion: '7' } }],
    ['a null in the input', live(), { ...applied, spec: { ...(applied.spec as object), paused: null } } as Unstructured],
  ];
  for (const [what, l, a, manager] of cases) assert.equal(appliesAsIs(a, l, manager ?? 'kdyn'), false, what);
});

test('a set list (v: entries) and a ConfigMap', () => {
  const cm: Unstructured = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n', finalizers: ['a/b'] }, data: { k: 'v' } };
  const mf = [{ manager: 'kdyn', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} }, 'f:metadata': { 'f:finalizers': { 'v:"a/b"': {} } } } }];
  const l = { ...cm, metadata: { ...cm.metadata, uid: 'u', managedFields: mf } };
  assert.equal(appliesAsIs(cm, l, 'kdyn'), true);
  assert.equal(appliesAsIs(cm, { ...l, metadata: { ...l.metadata, finalizers: ['a/b', 'c/d'] } }, 'kdyn'), false);
  assert.equal(appliesAsIs(cm, { ...l, data: { k: 'w' } }, 'kdyn'), false);
});

test('an object of nothing but its name (a Namespace), which no entry records: applies as is; with a label it does not', () => {
  const ns: Unstructured = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } };
  const l: Unstructured = { ...ns, metadata: { name: 'team', uid: 'u', labels: { 'kubernetes.io/metadata.name': 'team' }, managedFields: [] }, spec: { finalizers: ['kubernetes'] } };
  assert.equal(appliesAsIs(ns, l, 'kdyn'), true);
  assert.equal(appliesAsIs({ ...ns, metadata: { name: 'team', labels: { a: 'b' } } }, l, 'kdyn'), false);
});
