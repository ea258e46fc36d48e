// The CRD controller: a created CRD is established (immediately, or after crdEstablishDelayMs on
// the injected clock) with the status of recording 11 and appears in discovery; deleting it answers
// as recording 48, removes its objects and its group-version (49). Also CRD validation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange, shapeDiff } from '../../support/exchanges.js';
import { call } from './helpers.js';
import { simpleCrd } from '../../support/apiserver/crds.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function probeCrd(name = 'probes.check.kdyn.dev'): Record<string, any> {
  const [plural, ...group] = name.split('.');
  return simpleCrd({ group: group.join('.'), plural: plural!, kind: 'Probe', shortNames: ['prb'], versions: ['v1', 'v1beta1'] });
}

describe('local API server: CRD lifecycle', () => {
  let server: LocalApiServer;
  const clock = new FakeClock();
  before(async () => {
    server = await startServer({ clock, crdEstablishDelayMs: 2000 });
  });
  after(() => server.stop());

  test('established only after the delay; then served, with recording 11\'s status shape', async () => {
    const created = await call(server, 'POST', CRDS, { body: probeCrd() });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.status, { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    assert.deepEqual(shapeDiff(loadExchange(10).json, created.json, [/f:categories|categories|f:shortNames|shortNames|f:schema|f:subresources|subresources|additionalPrinterColumns|f:additionalPrinterColumns|openAPIV3Schema/]), []);
    assert.equal(server.catalog.lookup('check.kdyn.dev', 'v1', 'probes'), undefined);
    assert.equal((await call(server, 'GET', '/apis/check.kdyn.dev/v1/namespaces/default/probes')).status, 404);
    clock.advance(1999);
    await Promise.resolve();
    assert.equal(server.catalog.lookup('check.kdyn.dev', 'v1', 'probes'), undefined);
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    assert.ok(server.catalog.lookup('check.kdyn.dev', 'v1', 'probes'));
    assert.ok(server.catalog.lookup('check.kdyn.dev', 'v1beta1', 'probes'));
    const got = await call(server, 'GET', `${CRDS}/probes.check.kdyn.dev`);
    assert.deepEqual(got.json.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['NamesAccepted', 'True', 'NoConflicts'], ['Established', 'True', 'InitialNamesAccepted']]);
    assert.deepEqual(got.json.status.acceptedNames, { plural: 'probes', singular: 'probe', shortNames: ['prb'], kind: 'Probe', listKind: 'ProbeList' });
    const mf = got.json.metadata.managedFields.find((e: any) => e.manager === 'kube-apiserver');
    assert.equal(mf.subresource, 'status');
    assert.deepEqual(Object.keys(mf.fieldsV1['f:status']).sort(), ['f:acceptedNames', 'f:conditions']);
    const list = await call(server, 'GET', '/apis/check.kdyn.dev/v1/namespaces/default/probes');
    assert.equal(list.status, 200);
    assert.equal(list.json.kind, 'ProbeList');
  });

  test('delete: answers the terminating CRD (recording 48), removes its objects and its API', async () => {
    for (const n of ['p1', 'p2']) {
      const r = await call(server, 'POST', '/apis/check.kdyn.dev/v1/namespaces/default/probes', { body: { apiVersion: 'check.kdyn.dev/v1', kind: 'Probe', metadata: { name: n } } });
      assert.equal(r.status, 201);
    }
    assert.equal(server.store.count('check.kdyn.dev', 'probes'), 2);
    const del = await call(server, 'DELETE', `${CRDS}/probes.check.kdyn.dev`);
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, 'CustomResourceDefinition');
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    assert.deepEqual(del.json.status.conditions.map((c: any) => c.type), ['NamesAccepted', 'Established', 'Terminating']);
    assert.equal(server.store.count('check.kdyn.dev', 'probes'), 0);
    assert.equal(server.catalog.lookup('check.kdyn.dev', 'v1', 'probes'), undefined);
    const gv = await call(server, 'GET', '/apis/check.kdyn.dev/v1');
    assert.equal(gv.status, loadExchange(49).status);
    assert.equal(gv.text, '404 page not found\n');
    assert.equal((await call(server, 'GET', `${CRDS}/probes.check.kdyn.dev`)).status, 404);
  });

  test('a CRD deleted before its delay ran never becomes established', async () => {
    await call(server, 'POST', CRDS, { body: probeCrd('quick.check.kdyn.dev') });
    await call(server, 'DELETE', `${CRDS}/quick.check.kdyn.dev`);
    clock.advance(5000);
    await new Promise((r) => setImmediate(r));
    assert.equal(server.catalog.lookup('check.kdyn.dev', 'v1', 'quick'), undefined);
    assert.equal(server.store.get('apiextensions.k8s.io', 'customresourcedefinitions', '', 'quick.check.kdyn.dev'), undefined);
  });

  test('validation: the name must be plural.group; exactly one storage version', async () => {
    const wrong = await call(server, 'POST', CRDS, { body: { ...probeCrd(), metadata: { name: 'other.check.kdyn.dev' } } });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json.message, 'CustomResourceDefinition.apiextensions.k8s.io "other.check.kdyn.dev" is invalid: metadata.name: Invalid value: "other.check.kdyn.dev": must be spec.names.plural+"."+spec.group');
    const twoStorage = probeCrd();
    twoStorage.spec.versions[1].storage = true;
    const r = await call(server, 'POST', CRDS, { body: twoStorage });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /must have exactly one version marked as storage version/);
  });
});

test('with the default delay (0) a CRD is served right after the create returns', async () => {
  const server = await startServer();
  try {
    const created = await call(server, 'POST', CRDS, { body: probeCrd() });
    assert.equal(created.json.status.conditions, null, 'the create answer is the not-yet-established object, as recorded (10)');
    const r = await call(server, 'POST', '/apis/check.kdyn.dev/v1beta1/namespaces/default/probes', { body: { apiVersion: 'check.kdyn.dev/v1beta1', kind: 'Probe', metadata: { name: 'x' } } });
    assert.equal(r.status, 201);
    const v1 = await call(server, 'GET', '/apis/check.kdyn.dev/v1/namespaces/default/probes/x');
    assert.equal(v1.json.apiVersion, 'check.kdyn.dev/v1');
  } finally {
    await server.stop();
  }
});

test('the pipeline works with any Catalog (here the small stand-in): CRUD and CRDs without discovery documents', async () => {
  const { createMiniCatalog } = await import('../../support/apiserver/mini-catalog.js');
  const server = await startServer({ catalog: createMiniCatalog(), seed: 'demo' });
  try {
    assert.equal((await call(server, 'GET', '/apis')).status, 404, 'the stand-in serves no discovery');
    const r = await call(server, 'GET', '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets/falcon');
    assert.equal(r.status, 200);
    assert.equal(r.json.spec.stage, 'orbit');
    const created = await call(server, 'POST', CRDS, { body: probeCrd() });
    assert.equal(created.status, 201);
    const list = await call(server, 'GET', '/apis/check.kdyn.dev/v1beta1/probes');
    assert.equal(list.status, 200);
    assert.equal(list.json.apiVersion, 'check.kdyn.dev/v1beta1');
  } finally {
    await server.stop();
  }
});
