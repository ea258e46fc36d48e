// Object handling over real sockets: create (generateName, namespace must exist, AlreadyExists,
// validation), get, update with resourceVersion conflicts, merge and JSON patch, delete (Status or
// object as the real server answers), namespace deletion, versions sharing one stored object,
// status and scale subresources, managedFields.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { loadExchange, shapeDiff } from '../../support/exchanges.js';
import { call, configMap } from './helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';
const ROCKETS = '/apis/demo.kdyn.dev/v1/namespaces/demo/rockets';

describe('local API server: objects', () => {
  let server: LocalApiServer;
  before(async () => {
    server = await startServer({ seed: 'demo' });
  });
  after(() => server.stop());

  test('create stamps uid, creationTimestamp, resourceVersion from the global counter, and an Update managedFields entry', async () => {
    const rv0 = server.store.resourceVersion;
    const r = await call(server, 'POST', `${CM}?fieldManager=tester`, { body: configMap('c1', 'default', { k: 'v' }, { app: 'x' }) });
    assert.equal(r.status, 201);
    const m = r.json.metadata;
    assert.equal(m.resourceVersion, String(rv0 + 1));
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(m.generation, undefined, 'ConfigMaps have no generation');
    assert.deepEqual(m.managedFields, [
      {
        manager: 'tester',
        operation: 'Update',
        apiVersion: 'v1',
        time: m.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ]);
    // Without ?fieldManager the manager is the user agent's product name.
    const r2 = await call(server, 'POST', CM, { body: configMap('c2', 'default'), headers: { 'user-agent': 'kubectl-create/v1.32.0 (linux/amd64)' } });
    assert.equal(r2.json.metadata.managedFields[0].manager, 'kubectl-create');
    const got = await call(server, 'GET', `${CM}/c1`);
    assert.deepEqual(got.json, r.json);
  });

  test('custom resources: generation 1, keys sorted, shape of recording 14', async () => {
    const body = { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'r1', labels: { app: 'a1' } }, spec: { stage: 'x', engines: 2 } };
    const r = await call(server, 'POST', ROCKETS, { body, headers: { 'user-agent': 'curl/8.0' } });
    assert.equal(r.status, 201);
    assert.equal(r.json.metadata.generation, 1);
    assert.equal(r.json.metadata.namespace, 'demo');
    assert.deepEqual(Object.keys(r.json), ['apiVersion', 'kind', 'metadata', 'spec']);
    const recorded = loadExchange(14).json;
    assert.deepEqual(shapeDiff(recorded, r.json, [/cronSpec|image|replicas|stage|engines/]), []);
  });

  test('generateName makes a unique name with a 5-character suffix', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await call(server, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
      assert.equal(r.status, 201);
      assert.match(r.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      names.add(r.json.metadata.name);
    }
    assert.equal(names.size, 5);
  });

  test('create errors: missing namespace 404, AlreadyExists 409 (recording 44), no name 422, bad name 422, mismatches 400, bad JSON 400', async () => {
    const noNs = await call(server, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: configMap('x', 'nowhere') });
    assert.equal(noNs.status, 404);
    assert.deepEqual(noNs.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'namespaces "nowhere" not found', reason: 'NotFound', details: { name: 'nowhere', kind: 'namespaces' }, code: 404 });

    await call(server, 'POST', ROCKETS, { body: { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'dup' } } });
    const dup = await call(server, 'POST', ROCKETS, { body: { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'dup' } } });
    assert.equal(dup.status, 409);
    const recorded = loadExchange(44).json as any;
    assert.deepEqual(dup.json, { ...recorded, message: 'rockets.demo.kdyn.dev "dup" already exists', details: { name: 'dup', group: 'demo.kdyn.dev', kind: 'rockets' } });

    const noName = await call(server, 'POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
    assert.equal(noName.status, 422);
    assert.equal(noName.json.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    assert.deepEqual(noName.json.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);

    const badName = await call(server, 'POST', CM, { body: configMap('Bad_Name', 'default') });
    assert.equal(badName.status, 422);
    assert.match(badName.json.message, /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);

    const nsMismatch = await call(server, 'POST', CM, { body: configMap('x', 'kube-system') });
    assert.equal(nsMismatch.status, 400);
    assert.equal(nsMismatch.json.message, 'the namespace of the provided object does not match the namespace sent on the request');

    const gvMismatch = await call(server, 'POST', CM, { body: { ...configMap('x', 'default'), apiVersion: 'apps/v1' } });
    assert.equal(gvMismatch.status, 400);
    assert.equal(gvMismatch.json.message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');

    const typedKind = await call(server, 'POST', CM, { body: { ...configMap('x', 'default'), kind: 'Secret' } });
    assert.equal(typedKind.status, 400);
    assert.equal(typedKind.json.message, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');

    const kindMismatch = await call(server, 'POST', ROCKETS, { body: { apiVersion: 'demo.kdyn.dev/v1', kind: 'Satellite', metadata: { name: 'k' } } });
    assert.equal(kindMismatch.status, 422);
    assert.match(kindMismatch.json.message, /kind: Invalid value: "Satellite": must be Rocket/);

    const badJson = await call(server, 'POST', CM, { raw: '{"kind": ', headers: { 'content-type': 'application/json' } });
    assert.equal(badJson.status, 400);
    assert.equal(badJson.json.reason, 'BadRequest');
    assert.match(badJson.json.message, /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(\{"kind": \)$/);
    assert.equal(server.store.get('', 'configmaps', 'default', 'x'), undefined);
  });

  test('get: NotFound worded as recordings 26 and 27; unknown resources 404 page not found (28)', async () => {
    const a = await call(server, 'GET', `${ROCKETS}/nope`);
    assert.deepEqual(a.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'rockets.demo.kdyn.dev "nope" not found', reason: 'NotFound', details: { name: 'nope', group: 'demo.kdyn.dev', kind: 'rockets' }, code: 404 });
    const b = await call(server, 'GET', `${CM}/nope`);
    assert.deepEqual(b.json, loadExchange(27).json);
    const c = await call(server, 'GET', '/apis/demo.kdyn.dev/v1/namespaces/demo/widgets');
    assert.equal(c.status, 404);
    assert.equal(c.text, '404 page not found\n');
    const clusterScopedInNs = await call(server, 'GET', '/apis/demo.kdyn.dev/v1/namespaces/demo/launchpads');
    assert.equal(clusterScopedInNs.status, 404);
  });

  test('one stored object per custom resource, read through any served version', async () => {
    const v1 = await call(server, 'GET', `${ROCKETS}/falcon`);
    const alpha = await call(server, 'GET', '/apis/demo.kdyn.dev/v1alpha1/namespaces/demo/rockets/falcon');
    assert.equal(v1.json.apiVersion, 'demo.kdyn.dev/v1');
    assert.equal(alpha.json.apiVersion, 'demo.kdyn.dev/v1alpha1');
    assert.deepEqual({ ...alpha.json, apiVersion: '' }, { ...v1.json, apiVersion: '' });
  });

  test('update: resourceVersion conflict 409, name mismatch 400, missing object 404, generation moves with spec only', async () => {
    const cur = (await call(server, 'GET', `${ROCKETS}/falcon`)).json;
    const next = structuredClone(cur);
    next.spec.engines = 10;
    const ok = await call(server, 'PUT', `${ROCKETS}/falcon`, { body: next });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.metadata.generation, 2);
    assert.ok(Number(ok.json.metadata.resourceVersion) > Number(cur.metadata.resourceVersion));
    const stale = await call(server, 'PUT', `${ROCKETS}/falcon`, { body: next });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.reason, 'Conflict');
    assert.equal(stale.json.message, 'Operation cannot be fulfilled on rockets.demo.kdyn.dev "falcon": the object has been modified; please apply your changes to the latest version and try again');
    const labelsOnly = structuredClone(ok.json);
    labelsOnly.metadata.labels.extra = 'y';
    const l = await call(server, 'PUT', `${ROCKETS}/falcon`, { body: labelsOnly });
    assert.equal(l.status, 200);
    assert.equal(l.json.metadata.generation, 2, 'a metadata change does not bump generation');
    const wrongName = await call(server, 'PUT', `${ROCKETS}/other`, { body: l.json });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.json.message, 'the name of the object (falcon) does not match the name on the URL (other)');
    const missing = await call(server, 'PUT', `${CM}/ghost`, { body: configMap('ghost', 'default') });
    assert.equal(missing.status, 404);
    // Without a resourceVersion the update is unconditional.
    const { resourceVersion: _rv, ...meta } = l.json.metadata;
    const uncond = await call(server, 'PUT', `${ROCKETS}/falcon`, { body: { ...l.json, metadata: meta, spec: { ...l.json.spec, stage: 'landed' } } });
    assert.equal(uncond.status, 200);
    assert.equal(uncond.json.spec.stage, 'landed');
  });

  test('status subresource: /status changes only status, the main resource keeps status', async () => {
    const cur = (await call(server, 'GET', `${ROCKETS}/electron`)).json;
    const st = await call(server, 'PUT', `${ROCKETS}/electron/status`, { body: { ...cur, spec: { stage: 'ignored' }, status: { fuel: 5 } } });
    assert.equal(st.status, 200);
    assert.deepEqual(st.json.status, { fuel: 5 });
    assert.equal(st.json.spec.stage, cur.spec.stage);
    const entry = st.json.metadata.managedFields.find((e: any) => e.subresource === 'status');
    // status existed already: the manager gets the field it changed, not the map itself
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:fuel': {} } });
    const main = await call(server, 'PUT', `${ROCKETS}/electron`, { body: { ...st.json, status: { fuel: 99 } } });
    assert.deepEqual(main.json.status, { fuel: 5 });
  });

  test('merge patch and JSON patch; a failed JSON-patch test is 422; server-side apply of a built-in merges its data', async () => {
    const mp = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config', { raw: JSON.stringify({ data: { added: 'yes', 'log.level': null } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(mp.status, 200);
    assert.equal(mp.json.data.added, 'yes');
    assert.equal(mp.json.data['log.level'], undefined);
    const jp = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config', {
      raw: JSON.stringify([{ op: 'test', path: '/data/added', value: 'yes' }, { op: 'replace', path: '/data/added', value: 'changed' }, { op: 'add', path: '/metadata/labels/new', value: 'l' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(jp.status, 200, jp.text);
    assert.equal(jp.json.data.added, 'changed');
    assert.equal(jp.json.metadata.labels.new, 'l');
    const failed = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config', { raw: JSON.stringify([{ op: 'test', path: '/data/added', value: 'nope' }]), headers: { 'content-type': 'application/json-patch+json' } });
    assert.equal(failed.status, 422);
    const smp = await call(server, 'PATCH', '/apis/apps/v1/namespaces/demo/deployments/web', { raw: JSON.stringify({ spec: { replicas: 4 } }), headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 200);
    assert.equal(smp.json.spec.replicas, 4);
    assert.equal(smp.json.metadata.generation, 2);
    const rvConflict = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config', { raw: JSON.stringify({ metadata: { resourceVersion: '1' }, data: { z: '1' } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(rvConflict.status, 409);
    const missing = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/ghost', { raw: '{}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(missing.status, 404);
    const ssa = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config?fieldManager=kdyn', { raw: 'data: {a: b}', headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(ssa.status, 400, 'an applied configuration names its kind');
    assert.match(ssa.json.message, /^Object 'Kind' is missing in /);
    const applied = await call(server, 'PATCH', '/api/v1/namespaces/demo/configmaps/app-config?fieldManager=kdyn', { raw: 'apiVersion: v1\nkind: ConfigMap\ndata: {a: b}', headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.json.data.a, 'b');
    assert.ok(Object.keys(applied.json.data).length > 1, 'the other keys stay');
  });

  test('managedFields: an Update by another manager takes over the fields it changed', async () => {
    await call(server, 'POST', `${CM}?fieldManager=first`, { body: configMap('mf', 'default', { a: '1', b: '2' }) });
    const p = await call(server, 'PATCH', `${CM}/mf?fieldManager=second`, { raw: JSON.stringify({ data: { b: '3' } }), headers: { 'content-type': 'application/merge-patch+json' } });
    const byManager = Object.fromEntries(p.json.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    assert.deepEqual(byManager.first, { 'f:data': { '.': {}, 'f:a': {} } });
    assert.deepEqual(byManager.second, { 'f:data': { 'f:b': {} } });
  });

  test('delete: Status for most resources (recording 45), the object for namespaces; deleting a namespace deletes its objects', async () => {
    const r = await call(server, 'DELETE', `${ROCKETS}/dup`);
    assert.equal(r.status, 200);
    const recorded = loadExchange(45).json as any;
    assert.deepEqual(Object.keys(r.json), Object.keys(recorded));
    assert.deepEqual({ ...r.json.details, uid: '' }, { name: 'dup', group: 'demo.kdyn.dev', kind: 'rockets', uid: '' });
    assert.equal((await call(server, 'DELETE', `${ROCKETS}/dup`)).status, 404);

    await call(server, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } } });
    await call(server, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: configMap('a', 'doomed') });
    await call(server, 'POST', '/apis/demo.kdyn.dev/v1/namespaces/doomed/rockets', { body: { apiVersion: 'demo.kdyn.dev/v1', kind: 'Rocket', metadata: { name: 'r' } } });
    const ns = await call(server, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(ns.status, 200);
    assert.equal(ns.json.kind, 'Namespace');
    assert.equal(ns.json.status.phase, 'Terminating');
    assert.ok(ns.json.metadata.deletionTimestamp);
    assert.equal(server.store.count('', 'configmaps', 'doomed'), 0);
    assert.equal(server.store.count('demo.kdyn.dev', 'rockets', 'doomed'), 0);
    assert.equal((await call(server, 'GET', '/api/v1/namespaces/doomed')).status, 404);
    assert.ok(server.store.count('', 'configmaps', 'demo') > 0, 'other namespaces keep their objects');
  });

  test('delete preconditions and deletecollection with a label selector', async () => {
    await call(server, 'POST', CM, { body: configMap('pre', 'default') });
    const bad = await call(server, 'DELETE', `${CM}/pre`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-it' } } });
    assert.equal(bad.status, 409);
    assert.match(bad.json.message, /Precondition failed: UID in precondition: not-it/);
    for (const n of ['dc1', 'dc2', 'dc3']) await call(server, 'POST', CM, { body: configMap(n, 'default', {}, { sweep: n === 'dc3' ? 'no' : 'yes' }) });
    const dc = await call(server, 'DELETE', `${CM}?labelSelector=sweep%3Dyes`);
    assert.equal(dc.status, 200);
    assert.equal(dc.json.kind, 'ConfigMapList');
    assert.deepEqual(dc.json.items.map((i: any) => i.metadata.name), ['dc1', 'dc2']);
    assert.ok(server.store.get('', 'configmaps', 'default', 'dc3'));
    assert.equal(server.store.get('', 'configmaps', 'default', 'dc1'), undefined);
  });

  test('scale subresource: read and write replicas through autoscaling/v1 Scale', async () => {
    const s = await call(server, 'GET', '/apis/apps/v1/namespaces/demo/deployments/web/scale');
    assert.equal(s.status, 200);
    assert.equal(s.json.kind, 'Scale');
    assert.equal(s.json.status.selector, 'app=web');
    const put = await call(server, 'PUT', '/apis/apps/v1/namespaces/demo/deployments/web/scale', { body: { ...s.json, spec: { replicas: 7 } } });
    assert.equal(put.status, 200);
    assert.equal(put.json.spec.replicas, 7);
    assert.equal(server.store.get('apps', 'deployments', 'demo', 'web')!.spec.replicas, 7);
  });

  test('a kubectl-style protobuf create of a ConfigMap is decoded', async () => {
    // k8s\0 + Unknown{typeMeta{apiVersion:v1, kind:ConfigMap}, raw: ConfigMap{metadata{name:pb}, data{a:b}}}
    const str = (no: number, s: string | Buffer) => {
      const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
      return Buffer.concat([Buffer.from([(no << 3) | 2, b.length]), b]);
    };
    const meta = str(1, str(1, 'pb'));
    const data = str(2, Buffer.concat([str(1, 'a'), str(2, 'b')]));
    const raw = Buffer.concat([meta, data]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), str(1, Buffer.concat([str(1, 'v1'), str(2, 'ConfigMap')])), str(2, raw)]);
    const res = await fetch(server.url + CM, { method: 'POST', body, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' } });
    const json = (await res.json()) as any;
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(json.data, { a: 'b' });
    assert.equal(json.metadata.name, 'pb');
  });
});
