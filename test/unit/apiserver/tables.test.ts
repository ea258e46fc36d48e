// Server-side Tables: Accept negotiation (v1, v1beta1, kubectl's full list), includeObject
// None|Metadata|Object, CRD additionalPrinterColumns (JSONPath, priority, types, date columns as
// ages), the built-in printers' columns, and the generic convertors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/core/clock.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { humanDuration } from '../../support/apiserver/tables.js';
import { jsonPathFind } from '../../support/apiserver/jsonpath.js';
import { loadExchange, shapeDiff } from '../../support/exchanges.js';
import { call } from './helpers.js';

const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

test('humanDuration matches apimachinery duration.HumanDuration', () => {
  const s = 1000;
  const cases: Array<[number, string]> = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [150 * s, '2m30s'],
    [10 * 60 * s, '10m'],
    [179 * 60 * s, '179m'],
    [3 * 3600 * s, '3h'],
    [3 * 3600 * s + 5 * 60 * s, '3h5m'],
    [8 * 3600 * s, '8h'],
    [47 * 3600 * s, '47h'],
    [48 * 3600 * s, '2d'],
    [50 * 3600 * s, '2d2h'],
    [8 * 24 * 3600 * s, '8d'],
    [730 * 24 * 3600 * s, '2y'],
    [800 * 24 * 3600 * s, '2y70d'],
    [9 * 365 * 24 * 3600 * s, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
});

test('the printer-column JSONPath subset', () => {
  const o = { spec: { a: [{ n: 1 }, { n: 2 }], 'k.x': 'dot' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Other', status: 'False' }] } };
  assert.deepEqual(jsonPathFind(o, '.spec.a[1].n'), [2]);
  assert.deepEqual(jsonPathFind(o, ".spec['k.x']"), ['dot']);
  assert.deepEqual(jsonPathFind(o, '.spec.a[*].n'), [1, 2]);
  assert.deepEqual(jsonPathFind(o, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(jsonPathFind(o, '.spec.missing.deeper'), []);
  assert.deepEqual(jsonPathFind(o, '{.spec.a[-1].n}'), [2]);
});

describe('local API server: tables', () => {
  let server: LocalApiServer;
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  before(async () => {
    server = await startServer({ seed: 'demo', clock });
    clock.advance(5 * 60 * 1000 + 30 * 1000);
  });
  after(() => server.stop());

  const table = (path: string, accept = KUBECTL_ACCEPT) => call(server, 'GET', path, { headers: { accept } });

  test('CRD printer columns: Name first, types, priority-1 column, date column as an age; shape of recording 17', async () => {
    const r = await table('/apis/demo.kdyn.dev/v1/namespaces/demo/rockets?limit=500');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'Table');
    assert.equal(r.json.apiVersion, 'meta.k8s.io/v1');
    const cols = r.json.columnDefinitions.map((c: any) => [c.name, c.type, c.priority]);
    assert.deepEqual(cols, [['Name', 'string', 0], ['Stage', 'string', 0], ['Engines', 'integer', 0], ['Pad', 'string', 1], ['Age', 'date', 0]]);
    assert.equal(r.json.columnDefinitions[1].description, 'Custom resource definition column (in JSONPath format): .spec.stage');
    assert.equal(r.json.columnDefinitions[3].description, 'The LaunchPad this rocket flies from');
    assert.deepEqual(r.json.rows.map((row: any) => row.cells), [
      ['electron', 'assembly', 1, 'slc-4e', '5m30s'],
      ['falcon', 'orbit', 9, 'lc-39a', '5m30s'],
    ]);
    assert.equal(r.json.rows[0].object.kind, 'PartialObjectMetadata');
    const recorded = loadExchange(17).json;
    assert.deepEqual(shapeDiff(recorded, r.json, [/f:labels\.f:|f:spec\.f:|f:status/, /\.labels\./]), []);
  });

  test('includeObject=Object embeds the object (recording 18); None leaves it out; v1beta1 tables on request', async () => {
    const obj = await table('/apis/demo.kdyn.dev/v1/namespaces/demo/rockets?includeObject=Object');
    assert.equal(obj.json.rows[0].object.kind, 'Rocket');
    assert.equal(obj.json.rows[0].object.apiVersion, 'demo.kdyn.dev/v1');
    assert.equal(obj.json.rows[0].object.spec.stage, 'assembly');
    const none = await table('/apis/demo.kdyn.dev/v1/namespaces/demo/rockets?includeObject=None');
    assert.equal(none.json.rows[0].object, null);
    const beta = await table('/api/v1/namespaces', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    assert.equal(beta.json.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(beta.json.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
    const bad = await table('/api/v1/namespaces?includeObject=All');
    assert.equal(bad.status, 400);
  });

  test('another served version uses its own columns', async () => {
    const r = await table('/apis/demo.kdyn.dev/v1alpha1/rockets');
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Stage', 'Age']);
    assert.equal(r.json.rows.length, 3, 'across namespaces');
  });

  test('built-in printers: namespaces (19), configmaps (20), secrets, pods, services, deployments with wide columns', async () => {
    const ns = await table('/api/v1/namespaces?limit=500');
    assert.deepEqual(ns.json.columnDefinitions, (loadExchange(19).json as any).columnDefinitions);
    assert.deepEqual(ns.json.rows.find((r: any) => r.cells[0] === 'demo').cells, ['demo', 'Active', '5m30s']);
    const cm = await table('/api/v1/configmaps?limit=500');
    assert.deepEqual(cm.json.columnDefinitions, (loadExchange(20).json as any).columnDefinitions);
    assert.deepEqual(cm.json.rows.find((r: any) => r.cells[0] === 'app-config').cells, ['app-config', 2, '5m30s']);
    const sec = await table('/api/v1/namespaces/demo/secrets');
    assert.deepEqual(sec.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Type', 'Data', 'Age']);
    assert.deepEqual(sec.json.rows[0].cells, ['api-credentials', 'Opaque', 2, '5m30s']);
    const pods = await table('/api/v1/namespaces/demo/pods');
    assert.deepEqual(pods.json.columnDefinitions.map((c: any) => [c.name, c.priority]), [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]]);
    assert.deepEqual(pods.json.rows[0].cells, ['web-7d4b9c8f6d-x2x9q', '1/1', 'Running', '0', '5m30s', '10.244.0.12', 'local-node', '<none>', '<none>']);
    const svc = await table('/api/v1/namespaces/demo/services');
    assert.deepEqual(svc.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
    const svcCells = svc.json.rows[0].cells;
    assert.equal(svcCells[1], 'ClusterIP');
    assert.match(svcCells[2], /^10\.96\.\d+\.\d+$/);
    assert.deepEqual(svcCells.slice(3), ['<none>', '80/TCP', '5m30s', 'app=web']);
    const dep = await table('/apis/apps/v1/namespaces/demo/deployments');
    assert.deepEqual(dep.json.columnDefinitions.map((c: any) => [c.name, c.priority]), [['Name', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]]);
    assert.deepEqual(dep.json.rows[0].cells, ['web', '2/2', 2, 2, '5m30s', 'web', 'nginx:1.27', 'app=web']);
  });

  test('generic convertors: built-ins without a printer get Name + Created At; CRDs without columns get Name + Age', async () => {
    const sa = await call(server, 'POST', '/api/v1/namespaces/demo/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
    assert.equal(sa.status, 201);
    const r = await table('/apis/rbac.authorization.k8s.io/v1/clusterroles');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
    const crd = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'plains.plain.kdyn.dev' },
        spec: { group: 'plain.kdyn.dev', scope: 'Cluster', names: { plural: 'plains', kind: 'Plain' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
      },
    });
    assert.equal(crd.status, 201);
    await call(server, 'POST', '/apis/plain.kdyn.dev/v1/plains', { body: { apiVersion: 'plain.kdyn.dev/v1', kind: 'Plain', metadata: { name: 'p' } } });
    const plain = await table('/apis/plain.kdyn.dev/v1/plains');
    assert.deepEqual(plain.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
    assert.deepEqual(plain.json.rows[0].cells, ['p', '0s']);
  });

  test('a single object as a Table, PartialObjectMetadata on request, plain JSON otherwise, 406 for protobuf only', async () => {
    const one = await table('/apis/demo.kdyn.dev/v1/namespaces/demo/rockets/falcon');
    assert.equal(one.json.rows.length, 1);
    assert.equal(one.json.metadata.resourceVersion, server.store.get('demo.kdyn.dev', 'rockets', 'demo', 'falcon')!.metadata.resourceVersion);
    const pom = await call(server, 'GET', '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets', { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' } });
    assert.equal(pom.json.kind, 'PartialObjectMetadataList');
    assert.equal(pom.json.items[0].spec, undefined);
    const plain = await call(server, 'GET', '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets', { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    assert.equal(plain.json.kind, 'RocketList');
    const pb = await call(server, 'GET', '/api/v1/namespaces', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(pb.status, 406);
  });
});
