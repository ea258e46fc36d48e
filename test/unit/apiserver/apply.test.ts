// Server-side apply on the local API server over real sockets: create, field ownership per
// manager (FieldsV1), Apply and Update managers, conflicts and force, removal of fields a manager
// stops applying, list merging by declared keys (CRD list-map-keys, Deployment containers) or
// atomically, dryRun, fieldValidation, the status subresource, no-op applies (same
// resourceVersion, no watch event), and a CRD applied and established after the delay.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { call } from './helpers.js';
import { openWatch, tick } from './watch-helpers.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const GADGETS = '/apis/ssa.example.com/v1/namespaces/default/gadgets';

const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.ssa.example.com' },
  spec: {
    group: 'ssa.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  color: { type: 'string' },
                  shape: { type: 'string' },
                  parts: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', properties: { name: { type: 'string' }, count: { type: 'integer' } } },
                  },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

function gadget(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'ssa.example.com/v1', kind: 'Gadget', metadata: { name }, spec, ...extra };
}

const fields = (obj: any, manager: string, operation = 'Apply') => obj.metadata.managedFields.find((e: any) => e.manager === manager && e.operation === operation)?.fieldsV1;

describe('server-side apply', () => {
  let server: LocalApiServer;
  let clock: FakeClock;
  const apply = (path: string, body: unknown, q = '', headers: Record<string, string> = {}) =>
    call(server, 'PATCH', `${path}${q ? `?${q}` : ''}`, { raw: JSON.stringify(body), headers: { ...APPLY, ...headers } });

  before(async () => {
    clock = new FakeClock();
    server = await startServer({ seed: 'empty', clock });
    const r = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: GADGET_CRD });
    assert.equal(r.status, 201, r.text);
  });
  after(() => server?.stop());

  test('apply creates a missing object (201) with one Apply entry owning exactly the applied leaves', async () => {
    const r = await apply(`${GADGETS}/g1`, gadget('g1', { size: 1, color: 'red' }), 'fieldManager=alice');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.generation, 1);
    assert.deepEqual(r.json.metadata.managedFields, [
      { apiVersion: 'ssa.example.com/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:color': {}, 'f:size': {} } }, manager: 'alice', operation: 'Apply', time: r.json.metadata.creationTimestamp },
    ]);
  });

  test('the same apply twice changes nothing: same resourceVersion, no watch event', async () => {
    const first = await call(server, 'GET', `${GADGETS}/g1`);
    const w = await openWatch(server, `${GADGETS}?watch=1&resourceVersion=${first.json.metadata.resourceVersion}`);
    clock.advance(5000); // a later time must not show up either
    const again = await apply(`${GADGETS}/g1`, gadget('g1', { size: 1, color: 'red' }), 'fieldManager=alice');
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.deepEqual(again.json.metadata.managedFields, first.json.metadata.managedFields);
    // A later, real change is the first event the watch sees.
    const changed = await apply(`${GADGETS}/g1`, gadget('g1', { size: 2, color: 'red' }), 'fieldManager=alice');
    assert.equal(changed.status, 200);
    assert.notEqual(changed.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.equal(changed.json.metadata.generation, 2);
    const [e] = await w.next(1);
    assert.equal(e!.type, 'MODIFIED');
    assert.equal(e!.object.metadata.resourceVersion, changed.json.metadata.resourceVersion);
    await tick();
    assert.equal(w.events.length, 1);
    w.close();
  });

  test('a conflict with another Apply manager: 409 with one FieldManagerConflict cause per field; shared equal values do not conflict', async () => {
    const one = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9, color: 'red' }), 'fieldManager=bob');
    assert.equal(one.status, 409);
    assert.equal(one.json.reason, 'Conflict');
    assert.equal(one.json.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.size');
    assert.deepEqual(one.json.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' }] });
    const two = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9, color: 'blue' }), 'fieldManager=bob');
    assert.equal(two.status, 409);
    assert.equal(two.json.message, 'Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.color\n- .spec.size');
    assert.deepEqual(two.json.details.causes.map((c: any) => c.field), ['.spec.color', '.spec.size']);
    // Same value: both own it.
    const shared = await apply(`${GADGETS}/g1`, gadget('g1', { color: 'red', shape: 'round' }), 'fieldManager=bob');
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(fields(shared.json, 'bob'), { 'f:spec': { 'f:color': {}, 'f:shape': {} } });
    assert.deepEqual(fields(shared.json, 'alice'), { 'f:spec': { 'f:color': {}, 'f:size': {} } });
  });

  test('force=true takes the conflicting fields over; the loser keeps the rest', async () => {
    const r = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9, color: 'red', shape: 'round' }), 'fieldManager=bob&force=true');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.size, 9);
    assert.deepEqual(fields(r.json, 'alice'), { 'f:spec': { 'f:color': {} } });
    assert.deepEqual(fields(r.json, 'bob'), { 'f:spec': { 'f:color': {}, 'f:shape': {}, 'f:size': {} } });
    // Apply entries sort by time, then manager.
    assert.deepEqual(r.json.metadata.managedFields.map((e: any) => e.manager), ['alice', 'bob']);
  });

  test('a field a manager stops applying is removed, unless another manager still owns it', async () => {
    const r = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9, color: 'red' }), 'fieldManager=bob');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.shape, undefined, 'shape was only bob\'s');
    const r2 = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9 }), 'fieldManager=bob');
    assert.equal(r2.json.spec.color, 'red', 'color is still alice\'s');
  });

  test('an Update manager (merge patch) takes fields over; applying them again conflicts with it, named with its apiVersion', async () => {
    const p = await call(server, 'PATCH', `${GADGETS}/g1`, { raw: '{"spec":{"color":"green"}}', headers: { 'content-type': 'application/merge-patch+json', 'user-agent': 'curl/8.0' } });
    assert.equal(p.status, 200);
    assert.deepEqual(fields(p.json, 'curl', 'Update'), { 'f:spec': { 'f:color': {} } });
    assert.equal(fields(p.json, 'alice'), undefined, 'alice owned only color');
    const r = await apply(`${GADGETS}/g1`, gadget('g1', { size: 9, color: 'black' }), 'fieldManager=bob');
    assert.equal(r.status, 409);
    assert.equal(r.json.message, 'Apply failed with 1 conflict: conflict with "curl" using ssa.example.com/v1: .spec.color');
  });

  test('removing a nested field leaves the stored object it was merged from untouched', async () => {
    const a = await apply(`${GADGETS}/n1`, gadget('n1', { parts: [{ name: 'p', count: 1 }], size: 1 }), 'fieldManager=alice');
    assert.equal(a.status, 201, a.text);
    const stored = server.store.get('ssa.example.com', 'gadgets', 'default', 'n1')!;
    const before = JSON.stringify(stored);
    const b = await apply(`${GADGETS}/n1`, gadget('n1', { size: 1 }), 'fieldManager=alice');
    assert.equal(b.json.spec.parts, undefined, 'parts no longer applied by anyone');
    assert.equal(JSON.stringify(stored), before);
  });

  test('lists: x-kubernetes-list-type=map merges items by key across managers; an undeclared list is atomic', async () => {
    const a = await apply(`${GADGETS}/g2`, gadget('g2', { parts: [{ name: 'x', count: 1 }], tags: ['a'] }), 'fieldManager=alice');
    assert.equal(a.status, 201, a.text);
    assert.deepEqual(fields(a.json, 'alice'), { 'f:spec': { 'f:parts': { 'k:{"name":"x"}': { '.': {}, 'f:count': {}, 'f:name': {} } }, 'f:tags': {} } });
    const b = await apply(`${GADGETS}/g2`, gadget('g2', { parts: [{ name: 'y', count: 2 }] }), 'fieldManager=bob');
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(b.json.spec.parts.find((p: any) => p.name === 'x'), { name: 'x', count: 1 });
    assert.deepEqual(b.json.spec.parts.map((p: any) => p.name).sort(), ['x', 'y']);
    const conflictOnItem = await apply(`${GADGETS}/g2`, gadget('g2', { parts: [{ name: 'x', count: 5 }] }), 'fieldManager=bob');
    assert.equal(conflictOnItem.status, 409);
    assert.equal(conflictOnItem.json.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.parts[name="x"].count');
    const atomic = await apply(`${GADGETS}/g2`, gadget('g2', { tags: ['b'] }), 'fieldManager=bob');
    assert.equal(atomic.status, 409);
    assert.equal(atomic.json.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.tags');
  });

  test('Update managers record lists as the schema declares them, so their ownership meets Apply\'s', async () => {
    const c = await call(server, 'POST', GADGETS, { body: gadget('u2', { parts: [{ name: 'x', count: 1 }], tags: ['a'] }), headers: { 'user-agent': 'curl/8.0' } });
    assert.equal(c.status, 201, c.text);
    assert.deepEqual(fields(c.json, 'curl', 'Update'), { 'f:spec': { '.': {}, 'f:parts': { 'k:{"name":"x"}': { '.': {}, 'f:count': {}, 'f:name': {} } }, 'f:tags': {} } });
    const r = await apply(`${GADGETS}/u2`, gadget('u2', { parts: [{ name: 'x', count: 2 }] }), 'fieldManager=bob');
    assert.equal(r.status, 409);
    assert.equal(r.json.message, 'Apply failed with 1 conflict: conflict with "curl" using ssa.example.com/v1: .spec.parts[name="x"].count');
  });

  test('built-in lists: Deployment containers merge by name', async () => {
    const deploy = (containers: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } } },
    });
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    const app = { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] };
    const a = await apply(path, deploy([app]), 'fieldManager=alice');
    assert.equal(a.status, 201, a.text);
    assert.deepEqual(fields(a.json, 'alice')['f:spec']['f:template']['f:spec']['f:containers'], {
      'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
    });
    // Applied again: the defaulted protocol is part of the port's key, so nothing changes.
    const again = await apply(path, deploy([app]), 'fieldManager=alice');
    assert.equal(again.json.metadata.resourceVersion, a.json.metadata.resourceVersion);
    assert.deepEqual(again.json.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
    const b = await apply(path, deploy([{ name: 'sidecar', image: 'side:1' }]), 'fieldManager=bob');
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(b.json.spec.template.spec.containers.map((c: any) => c.name).sort(), ['app', 'sidecar']);
  });

  test('dryRun=All answers the result and stores nothing', async () => {
    const r = await apply(`${GADGETS}/dry`, gadget('dry', { size: 1 }), 'fieldManager=alice&dryRun=All');
    assert.equal(r.status, 201);
    assert.equal(r.json.metadata.resourceVersion, undefined);
    assert.equal((await call(server, 'GET', `${GADGETS}/dry`)).status, 404);
    const before = (await call(server, 'GET', `${GADGETS}/g1`)).json;
    const d = await apply(`${GADGETS}/g1`, gadget('g1', { size: 100 }), 'fieldManager=bob&dryRun=All&force=true');
    assert.equal(d.status, 200);
    assert.equal(d.json.spec.size, 100);
    assert.deepEqual((await call(server, 'GET', `${GADGETS}/g1`)).json, before);
  });

  test('fieldValidation: Strict refuses unknown fields (400), Warn warns and prunes, Ignore prunes', async () => {
    const body = gadget('v1', { size: 1, bogus: true });
    const strict = await apply(`${GADGETS}/v1`, body, 'fieldManager=alice&fieldValidation=Strict');
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'failed to create typed patch object (default/v1; ssa.example.com/v1, Kind=Gadget): .spec.bogus: field not declared in schema');
    const warn = await apply(`${GADGETS}/v1`, body, 'fieldManager=alice&fieldValidation=Warn');
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.get('warning'), '299 - "unknown field \\"spec.bogus\\""');
    assert.deepEqual(warn.json.spec, { size: 1 });
    const ignore = await apply(`${GADGETS}/v2`, { ...body, metadata: { name: 'v2' } }, 'fieldManager=alice&fieldValidation=Ignore');
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.get('warning'), null);
    assert.deepEqual(ignore.json.spec, { size: 1 });
    const typed = await apply(`${GADGETS}/v3`, gadget('v3', { size: 'big' }), 'fieldManager=alice');
    assert.equal(typed.status, 500);
    assert.equal(typed.json.message, 'failed to create typed patch object (default/v3; ssa.example.com/v1, Kind=Gadget): .spec.size: expected numeric (int or float), got string');
  });

  test('the status subresource: apply changes status only, owned by an entry with subresource "status"', async () => {
    const r = await apply(`${GADGETS}/g1/status`, gadget('g1', { size: 1000 }, { status: { ready: true } }), 'fieldManager=controller');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.status, { ready: true });
    assert.equal(r.json.spec.size, 9);
    const e = r.json.metadata.managedFields.find((x: any) => x.manager === 'controller');
    assert.deepEqual(e, { ...e, operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:ready': {} } } });
    // Through the main resource, status is not applied.
    const main = await apply(`${GADGETS}/g3`, gadget('g3', { size: 1 }, { status: { ready: true } }), 'fieldManager=alice');
    assert.equal(main.json.status, undefined);
    assert.equal((await apply(`${GADGETS}/missing/status`, gadget('missing', {}, { status: { ready: true } }), 'fieldManager=c')).status, 404);
  });

  test('request checks: fieldManager required (422), name mismatch (400), namespace on a cluster-scoped object dropped', async () => {
    const none = await apply(`${GADGETS}/g1`, gadget('g1', { size: 1 }));
    assert.equal(none.status, 422);
    assert.equal(none.json.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const mismatch = await apply(`${GADGETS}/other`, gadget('g1', { size: 1 }), 'fieldManager=alice');
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.message, 'the name of the object (g1) does not match the name on the URL (other)');
    const ns = await apply('/api/v1/namespaces/team-a', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', namespace: 'default', labels: { team: 'a' } } }, 'fieldManager=alice');
    assert.equal(ns.status, 201, ns.text);
    assert.equal(ns.json.metadata.namespace, undefined);
    assert.deepEqual(fields(ns.json, 'alice'), { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    const yaml = await call(server, 'PATCH', `${GADGETS}/y?fieldManager=alice`, { raw: 'apiVersion: ssa.example.com/v1\nkind: Gadget\nmetadata:\n  name: y\nspec:\n  size: 3\n', headers: APPLY });
    assert.equal(yaml.status, 201, yaml.text);
    const bad = await call(server, 'PATCH', `${GADGETS}/y?fieldManager=alice`, { raw: 'apiVersion: v1\nkind: a: b\n', headers: APPLY });
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /^error decoding YAML: error converting YAML to JSON: yaml: line 2: /);
  });

  test('plain create and update record Update managers next to Apply ones', async () => {
    const c = await call(server, 'POST', GADGETS, { body: gadget('u1', { size: 1 }), headers: { 'user-agent': 'kubectl-create/v1.32.0' } });
    assert.equal(c.status, 201);
    assert.deepEqual(fields(c.json, 'kubectl-create', 'Update'), { 'f:spec': { '.': {}, 'f:size': {} } });
    const a = await apply(`${GADGETS}/u1`, gadget('u1', { color: 'x' }), 'fieldManager=alice');
    assert.deepEqual(a.json.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`), ['alice/Apply', 'kubectl-create/Update']);
  });

  test('a CRD applied server-side becomes Established after the configured delay and appears in discovery', async () => {
    const s2 = await startServer({ seed: 'empty', clock, crdEstablishDelayMs: 3000 });
    try {
      const crd = { ...GADGET_CRD, metadata: { name: 'widgets.late.example.com' }, spec: { ...GADGET_CRD.spec, group: 'late.example.com', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' } } };
      const r = await call(s2, 'PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.late.example.com?fieldManager=kubectl', { raw: JSON.stringify(crd), headers: APPLY });
      assert.equal(r.status, 201, r.text);
      assert.equal(s2.catalog.lookup('late.example.com', 'v1', 'widgets'), undefined);
      await tick();
      clock.advance(3000);
      await tick();
      const got = await call(s2, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.late.example.com');
      assert.ok(got.json.status.conditions.some((c: any) => c.type === 'Established' && c.status === 'True'));
      const disc = await call(s2, 'GET', '/apis/late.example.com/v1');
      assert.equal(disc.status, 200);
      assert.deepEqual(disc.json.resources.map((x: any) => x.name), ['widgets', 'widgets/status']);
      // Applying the same CRD again changes nothing.
      const again = await call(s2, 'PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.late.example.com?fieldManager=kubectl', { raw: JSON.stringify(crd), headers: APPLY });
      assert.equal(again.status, 200);
      assert.equal(again.json.metadata.resourceVersion, got.json.metadata.resourceVersion);
    } finally {
      await s2.stop();
    }
  });
});
