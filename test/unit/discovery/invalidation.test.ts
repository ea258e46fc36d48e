/**
 * Discovery after kdyn's own writes (discovery/invalidation.ts): which objects change discovery, and
 * invalidateAfterWrites marking the cache stale on disk for kdyn (its combined file) and for kubectl
 * (servergroups.json and the group's serverresources.json, by kubectl's TTL rule: file mtime), so the
 * next run of either asks the server.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, type Harness } from './harness.js';
import { discoveryGroupsChangedBy, invalidateAfterWrites } from '../../../src/discovery/invalidation.js';
import { staticDiscovery } from '../../../src/discovery/static.js';
import { simpleCrd } from '../../support/apiserver/crds.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

/** kubectl's rule (client-go disk cache getCachedFile): a file older than its 6-hour TTL is refetched. */
const KUBECTL_TTL_MS = 6 * 3600_000;
const kubectlWouldRefetch = (path: string) => Date.now() - statSync(path).mtimeMs > KUBECTL_TTL_MS;

describe('discoveryGroupsChangedBy', () => {
  test('CRDs and APIServices name their group; any other object changes nothing', () => {
    const crd = simpleCrd({ group: 'nb.example.com', plural: 'gadgets', kind: 'Gadget' }) as Unstructured;
    assert.deepEqual(discoveryGroupsChangedBy(crd), ['nb.example.com']);
    assert.deepEqual(discoveryGroupsChangedBy({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.nb.example.com' } }), ['nb.example.com'], 'by name (a delete)');
    assert.deepEqual(discoveryGroupsChangedBy({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' }, spec: { group: 'metrics.k8s.io', version: 'v1beta1' } }), ['metrics.k8s.io']);
    assert.deepEqual(discoveryGroupsChangedBy({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.custom.metrics.k8s.io' } }), ['custom.metrics.k8s.io']);
    assert.equal(discoveryGroupsChangedBy({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }), undefined);
    assert.equal(discoveryGroupsChangedBy({ apiVersion: 'example.com/v1', kind: 'CustomResourceDefinition', metadata: { name: 'a.b' } }), undefined, 'another group\'s kind of that name');
  });

  test('a discovery without a disk cache is invalidated in memory; nothing to do for other objects', () => {
    let invalidated = 0;
    const d = { ...staticDiscovery({ groups: [], resources: new Map(), failures: [] }), invalidate: () => void invalidated++ };
    assert.equal(invalidateAfterWrites(d, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }]), undefined);
    assert.equal(invalidated, 0);
    const crd = simpleCrd({ group: 'nb.example.com', plural: 'gadgets', kind: 'Gadget' }) as Unstructured;
    assert.deepEqual(invalidateAfterWrites(d, [crd, crd]), ['nb.example.com']);
    assert.equal(invalidated, 1);
  });
});

describe('invalidateAfterWrites over the disk cache', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ discovery: 'aggregated' });
  });
  after(() => h.close());

  test('a CRD added to a cached group: the next kdyn run revalidates and sees it; kubectl would refetch exactly what changed', async () => {
    const d = h.discovery();
    await d.snapshot();
    await d.flush();
    const p = (await d.paths())!;
    const rockets = join(p.kubectlDir, 'demo.kdyn.dev', 'v1', 'serverresources.json');
    const apps = join(p.kubectlDir, 'apps', 'v1', 'serverresources.json');
    const appsMtime = statSync(apps).mtimeMs;

    // Another CRD in the group the cache already holds (kdyn apply writes it; here, the server directly).
    const crd = simpleCrd({ group: 'demo.kdyn.dev', plural: 'comets', kind: 'Comet' });
    const res = await h.transport.request({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(crd) });
    assert.equal(res.status, 201);
    const stale = await h.discovery().snapshot();
    assert.ok(!stale.resources.get('demo.kdyn.dev/v1')!.some((r) => r.name === 'comets'), 'within its TTL the cache does not know it');

    const writer = h.discovery();
    await writer.snapshot();
    assert.deepEqual(invalidateAfterWrites(writer, [crd as Unstructured]), ['demo.kdyn.dev']);
    await writer.flush();
    for (const f of [p.combinedFile, p.serverGroupsFile, rockets]) assert.ok(kubectlWouldRefetch(f), `${f} is past every TTL`);
    assert.equal(statSync(apps).mtimeMs, appsMtime, 'other groups stay valid');
    assert.ok(readFileSync(p.combinedFile, 'utf8').includes('"etag"'), 'nothing deleted: the ETags still revalidate');

    h.server.clearLog();
    const next = h.discovery();
    const s = await next.snapshot();
    await next.flush();
    assert.ok(s.resources.get('demo.kdyn.dev/v1')!.some((r) => r.name === 'comets' && r.kind === 'Comet'));
    assert.deepEqual(h.discoveryRequests().map((r) => `${r.path} ${r.status}`).sort(), ['/api 304', '/apis 200']);
    assert.ok(!kubectlWouldRefetch(p.serverGroupsFile) && !kubectlWouldRefetch(rockets), 'written again, fresh');
    assert.match(readFileSync(rockets, 'utf8'), /"comets"/);

    // The writer's own process: asks the server again too.
    h.server.clearLog();
    assert.ok((await writer.snapshot()).resources.get('demo.kdyn.dev/v1')!.some((r) => r.name === 'comets'));
    assert.equal(h.discoveryRequests().length, 2);
  });
});
