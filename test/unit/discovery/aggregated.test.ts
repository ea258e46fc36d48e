import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { isAggregatedContentType, parseAggregatedDiscovery, AGGREGATED_ACCEPT } from '../../../src/discovery/aggregated.js';
import { readExchange, readJSON } from './fixtures.js';

const api = readJSON('06-aggregated-api.http');
const apis = readJSON('07-aggregated-apis.http');

function legacyList(name: string): Array<Record<string, unknown>> {
  return (readJSON(name) as { resources: Array<Record<string, unknown>> }).resources;
}

describe('parseAggregatedDiscovery', () => {
  test('recorded v1.32 documents: core first, groups in server order, preferred version first', () => {
    const s = parseAggregatedDiscovery(api, apis);
    assert.equal(s.groups[0]!.name, '');
    assert.deepEqual(s.groups[0]!.versions, ['v1']);
    const legacyGroups = (readJSON('03-legacy-apis.http') as { groups: Array<{ name: string; versions: Array<{ version: string }>; preferredVersion: { version: string } }> }).groups;
    assert.deepEqual(s.groups.slice(1).map((g) => g.name), legacyGroups.map((g) => g.name));
    for (const lg of legacyGroups) {
      const g = s.groups.find((x) => x.name === lg.name)!;
      assert.deepEqual(g.versions, lg.versions.map((v) => v.version), lg.name);
      assert.equal(g.preferredVersion, lg.preferredVersion.version, lg.name);
    }
    assert.deepEqual(s.failures, []);
  });

  for (const [gv, file] of [['v1', '04-legacy-core-v1.http'], ['apps/v1', '05-legacy-apps-v1.http']] as const) {
    test(`${gv} converts to exactly what legacy discovery serves (names, kinds, verbs, scope, short names)`, () => {
      const s = parseAggregatedDiscovery(api, apis);
      const got = s.resources.get(gv)!;
      const want = legacyList(file);
      assert.deepEqual(got.map((r) => r.name), want.map((r) => r.name));
      for (const w of want) {
        const r = got.find((x) => x.name === w.name)!;
        assert.equal(r.kind, w.kind, w.name as string);
        assert.equal(r.namespaced, w.namespaced, w.name as string);
        assert.deepEqual(r.verbs, w.verbs, w.name as string);
        assert.deepEqual(r.shortNames, w.shortNames ?? [], w.name as string);
        assert.deepEqual(r.categories, w.categories ?? [], w.name as string);
        assert.equal(r.kindGroup, w.group, w.name as string);
        assert.equal(r.kindVersion, w.version, w.name as string);
        if (!(w.name as string).includes('/')) assert.equal(r.singularName, w.singularName, w.name as string);
        assert.equal(r.group, gv === 'v1' ? '' : 'apps');
      }
    });
  }

  test('subresources become parent/sub with the parent singular name and scope', () => {
    const s = parseAggregatedDiscovery(api, apis);
    const scale = s.resources.get('apps/v1')!.find((r) => r.name === 'deployments/scale')!;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.kindGroup, 'autoscaling');
    assert.equal(scale.singularName, 'deployment');
    assert.equal(scale.namespaced, true);
    assert.deepEqual(scale.shortNames, []);
  });

  test('a new CRD group (recording 13) matches legacy /apis/stable.example.com/v1 (recording 12)', () => {
    const s = parseAggregatedDiscovery(api, readJSON('13-aggregated-apis-with-crd.http'));
    const g = s.groups.find((x) => x.name === 'stable.example.com')!;
    assert.equal(g.preferredVersion, g.versions[0]);
    const got = s.resources.get('stable.example.com/v1')!;
    const want = legacyList('12-legacy-crd-group-version.http');
    assert.deepEqual(got.map((r) => [r.name, r.kind, r.kindGroup ?? '']), want.map((r) => [r.name, r.kind, r.group ?? '']));
    assert.deepEqual(got[0]!.shortNames, ['ct']);
    assert.deepEqual(got[0]!.categories, ['all']);
  });

  test('restmapper corpus: colliding CRD groups, multi-version widgets, order kept', () => {
    const s = parseAggregatedDiscovery(readJSON('aggregated-api.json'), readJSON('aggregated-apis.json'));
    const raw = readJSON('aggregated-apis.json') as { items: Array<{ metadata: { name: string }; versions: Array<{ version: string }> }> };
    assert.deepEqual(s.groups.slice(1).map((g) => g.name), raw.items.map((i) => i.metadata.name));
    for (const item of raw.items) {
      const g = s.groups.find((x) => x.name === item.metadata.name)!;
      assert.deepEqual(g.versions, item.versions.map((v) => v.version));
    }
    const shadow = s.resources.get([...s.resources.keys()].find((k) => k.startsWith('shadow.example.com/'))!)!;
    assert.ok(shadow.some((r) => r.name === 'pods'));
  });

  test('a Stale version is removed and reported; the next version becomes preferred', () => {
    const doc = structuredClone(apis) as { items: Array<{ metadata: { name: string }; versions: Array<{ version: string; freshness?: string }> }> };
    const auto = doc.items.find((i) => i.metadata.name === 'autoscaling')!;
    assert.ok(auto.versions.length >= 2);
    const first = auto.versions[0]!.version;
    auto.versions[0]!.freshness = 'Stale';
    const s = parseAggregatedDiscovery(api, doc);
    const g = s.groups.find((x) => x.name === 'autoscaling')!;
    assert.equal(g.preferredVersion, auto.versions[1]!.version);
    assert.ok(!g.versions.includes(first));
    assert.equal(s.resources.has(`autoscaling/${first}`), false);
    assert.deepEqual(s.failures, [{ groupVersion: `autoscaling/${first}`, reason: 'stale', message: `stale GroupVersion discovery: autoscaling/${first}` }]);
  });

  test('a fully stale group stays listed with no versions', () => {
    const doc = structuredClone(apis) as { items: Array<{ metadata: { name: string }; versions: Array<{ freshness?: string }> }> };
    for (const v of doc.items.find((i) => i.metadata.name === 'apps')!.versions) v.freshness = 'Stale';
    const s = parseAggregatedDiscovery(api, doc);
    assert.deepEqual(s.groups.find((g) => g.name === 'apps'), { name: 'apps', versions: [], preferredVersion: '' });
    assert.deepEqual(s.failures.map((f) => f.groupVersion), ['apps/v1']);
  });

  test('resources without responseKind are skipped, their subresources kept', () => {
    const doc = {
      kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2beta1',
      items: [{ metadata: { name: 'x.io' }, versions: [{ version: 'v1', resources: [
        { resource: 'legacies', scope: 'Namespaced', singularResource: 'legacy', verbs: ['get'], subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Legacy' }, verbs: ['get'] }] },
        { resource: 'goods', scope: 'Cluster', singularResource: 'good', responseKind: { group: '', version: '', kind: 'Good' }, verbs: ['list'], subresources: [{ subresource: 'nokind', verbs: ['get'] }] },
      ] }] }],
    };
    const s = parseAggregatedDiscovery(undefined, doc);
    assert.deepEqual(s.resources.get('x.io/v1')!.map((r) => [r.name, r.kind, r.namespaced, r.singularName]), [
      ['legacies/status', 'Legacy', true, 'legacy'],
      ['goods', 'Good', false, 'good'],
    ]);
  });

  test('rejects a document that is not an APIGroupDiscoveryList', () => {
    assert.throws(() => parseAggregatedDiscovery(readJSON('02-legacy-api.http'), undefined), TypeError);
    assert.throws(() => parseAggregatedDiscovery(undefined, { kind: 'APIGroupDiscoveryList', apiVersion: 'v1' }), TypeError);
  });
});

describe('content negotiation', () => {
  test('the Accept header is the one kubectl sends (recording 07)', () => {
    assert.equal(AGGREGATED_ACCEPT, readExchange('07-aggregated-apis.http').requestHeaders.accept);
  });
  test('Content-Type parameters match in any order; plain JSON is legacy', () => {
    assert.equal(isAggregatedContentType(readExchange('07-aggregated-apis.http').responseHeaders['content-type']), true);
    assert.equal(isAggregatedContentType('application/json; as=APIGroupDiscoveryList; v=v2beta1; g=apidiscovery.k8s.io'), true);
    assert.equal(isAggregatedContentType('application/json'), false);
    assert.equal(isAggregatedContentType('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'), false);
    assert.equal(isAggregatedContentType(undefined), false);
  });
});
