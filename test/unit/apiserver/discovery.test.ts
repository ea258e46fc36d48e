// The local API server's catalog and discovery documents against the recorded v1.32 server
// (test/fixtures/exchanges) and the RESTMapper corpus (test/fixtures/restmapper-corpus).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { createCatalog } from '../../support/apiserver/catalog.js';
import { loadExchange, fixturesDir } from '../../support/exchanges.js';
import type { Obj, RawResponse } from '../../support/apiserver/types.js';

const AGGREGATED_ACCEPT = loadExchange(7).requestHeaders.accept!;
const corpusFile = (name: string) => join(fixturesDir(), 'restmapper-corpus', name);
const corpus = (name: string) => JSON.parse(readFileSync(corpusFile(name), 'utf8')) as Obj;
const established = (crd: Obj): Obj => ({ ...crd, status: { conditions: [{ type: 'Established', status: 'True' }] } });
const corpusCrds = () => (loadAll(readFileSync(corpusFile('crds.yaml'), 'utf8')) as Obj[]).map(established);
/** The CRD of recordings 10/11 (crontabs.stable.example.com, v1 + v1beta1, status and scale). */
const recordedCrd = () => loadExchange(11).json as Obj;
const bodyOf = (r: RawResponse | undefined) => JSON.parse(String(r?.body)) as Obj;
const get = (c: ReturnType<typeof createCatalog>, path: string, headers: Obj = {}) => {
  const r = c.serveDiscovery('GET', path, headers);
  assert.ok(r, `${path} answered`);
  return r;
};

describe('built-in discovery matches the recorded v1.32 server', () => {
  const c = createCatalog({ discovery: 'aggregated' });
  const cases: Array<[number, string, Obj]> = [
    [2, '/api', { host: '127.0.0.1:6443' }],
    [3, '/apis', {}],
    [4, '/api/v1', {}],
    [5, '/apis/apps/v1', {}],
    [6, '/api', { accept: AGGREGATED_ACCEPT }],
    [7, '/apis', { accept: AGGREGATED_ACCEPT }],
  ];
  for (const [n, path, headers] of cases) {
    const rec = loadExchange(n);
    test(`${rec.name}: GET ${path} body and headers`, () => {
      const r = get(c, path, headers);
      assert.equal(r.status, rec.status);
      assert.deepEqual(bodyOf(r), rec.json);
      for (const h of ['content-type', 'cache-control', 'vary']) assert.equal(r.headers[h], rec.responseHeaders[h], h);
      assert.equal(r.headers.etag === undefined, rec.responseHeaders.etag === undefined, 'etag presence');
    });
  }

  test('every built-in resource resolves through lookup, byKind and versionsOf', () => {
    let count = 0;
    for (const n of [6, 7]) {
      for (const g of (loadExchange(n).json as Obj).items) {
        const group = g.metadata.name ?? '';
        for (const v of g.versions) {
          for (const r of v.resources) {
            const served = c.lookup(group, v.version, r.resource);
            assert.ok(served, `${group}/${v.version}/${r.resource}`);
            assert.equal(served.kind, r.responseKind.kind);
            assert.equal(served.namespaced, r.scope === 'Namespaced');
            assert.deepEqual(served.categories, r.categories ?? []);
            assert.deepEqual(served.shortNames, r.shortNames ?? []);
            assert.equal(c.byKind(group, v.version, r.responseKind.kind)?.resource, r.resource);
            assert.deepEqual(c.versionsOf(group, r.resource).map((x) => x.version), g.versions.filter((x: Obj) => x.resources.some((y: Obj) => y.resource === r.resource)).map((x: Obj) => x.version));
            count++;
          }
        }
      }
    }
    assert.equal(count, 59, 'resources in the recorded /api and /apis');
    assert.deepEqual(c.lookup('apps', 'v1', 'deployments')?.subresources.find((s) => s.name === 'scale')?.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual(c.lookup('', 'v1', 'pods')?.subresources.find((s) => s.name === 'status')?.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.equal(c.lookup('apps', 'v1', 'nope'), undefined);
    assert.deepEqual(c.versionsOf('autoscaling', 'horizontalpodautoscalers').map((r) => r.version), ['v2', 'v1']);
  });
});

describe('aggregated discovery negotiation and caching', () => {
  test('recording 08: If-None-Match with the current ETag answers 304 with the recorded headers', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const first = get(c, '/apis', { accept: AGGREGATED_ACCEPT });
    assert.match(first.headers.etag!, /^"[0-9A-F]{128}"$/);
    const rec = loadExchange(8);
    const r = get(c, '/apis', { accept: AGGREGATED_ACCEPT, 'if-none-match': first.headers.etag });
    assert.equal(r.status, rec.status);
    assert.equal(r.body, '');
    assert.deepEqual(Object.keys(r.headers).sort(), Object.keys(rec.responseHeaders).sort());
    assert.equal(r.headers.etag, first.headers.etag);
    assert.equal(get(c, '/apis', { accept: AGGREGATED_ACCEPT, 'if-none-match': rec.responseHeaders.etag }).status, 200, 'another ETag gets the document');
  });

  test('v2beta1 when asked for first; legacy for plain JSON or no Accept; 406 for a Table-only Accept', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const beta = get(c, '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' });
    assert.equal(beta.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    assert.equal(bodyOf(beta).apiVersion, 'apidiscovery.k8s.io/v2beta1');
    assert.equal(bodyOf(get(c, '/apis', { accept: 'application/json' })).kind, 'APIGroupList');
    assert.equal(bodyOf(get(c, '/apis')).kind, 'APIGroupList');
    const q = get(c, '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json' });
    assert.equal(bodyOf(q).kind, 'APIGroupList', 'a lower q value loses');
    const table = get(c, '/apis', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(table.status, 406);
    assert.equal(bodyOf(table).reason, 'NotAcceptable');
  });

  test("discovery 'legacy' answers kubectl's aggregated Accept with the legacy documents (pre-1.26 servers)", () => {
    const c = createCatalog({ discovery: 'legacy' });
    const apis = get(c, '/apis', { accept: AGGREGATED_ACCEPT });
    assert.deepEqual(bodyOf(apis), loadExchange(3).json);
    assert.equal(apis.headers['content-type'], 'application/json');
    assert.equal(apis.headers.etag, undefined);
    assert.equal(bodyOf(get(c, '/api', { accept: AGGREGATED_ACCEPT })).kind, 'APIVersions');
  });

  test('unknown group, version or path: 404 page not found as recorded (49); resource paths are not discovery', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const rec = loadExchange(49);
    for (const path of ['/apis/stable.example.com/v1', '/apis/apps/v2', '/api/v2', '/apis/nope']) {
      const r = get(c, path);
      assert.equal(r.status, rec.status, path);
      assert.equal(r.body, `${rec.body.trim()}\n`);
      assert.equal(r.headers['content-type'], rec.responseHeaders['content-type']);
    }
    assert.equal(c.serveDiscovery('GET', '/apis/apps/v1/deployments', {}), undefined);
    assert.equal(c.serveDiscovery('GET', '/api/v1/namespaces/default/pods', {}), undefined);
    assert.equal(c.serveDiscovery('POST', '/apis', {}), undefined);
    assert.equal(bodyOf(get(c, '/apis/apps')).preferredVersion.groupVersion, 'apps/v1');
    assert.deepEqual(bodyOf(get(c, '/apis/autoscaling')).versions.map((v: Obj) => v.version), ['v2', 'v1']);
  });
});

describe('CRDs in discovery', () => {
  test('the recorded CRD (10/11) is served as recordings 12 and 13 show, and disappears as 49 shows', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    c.crdChanged(recordedCrd(), false);
    assert.deepEqual(bodyOf(get(c, '/apis/stable.example.com/v1')), loadExchange(12).json);
    assert.deepEqual(bodyOf(get(c, '/apis', { accept: AGGREGATED_ACCEPT })), loadExchange(13).json);
    assert.equal(c.lookup('stable.example.com', 'v1beta1', 'crontabs')?.kind, 'CronTab');
    assert.equal(c.lookup('stable.example.com', 'v1', 'crontabs')?.crd?.metadata?.name, 'crontabs.stable.example.com');
    c.crdChanged(recordedCrd(), true);
    assert.equal(get(c, '/apis/stable.example.com/v1').status, 404);
    assert.equal(c.lookup('stable.example.com', 'v1', 'crontabs'), undefined);
    assert.deepEqual(bodyOf(get(c, '/apis', { accept: AGGREGATED_ACCEPT })), loadExchange(7).json);
  });

  test('with the corpus CRDs, /apis and /api reproduce the corpus documents exactly', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    for (const crd of corpusCrds()) c.crdChanged(crd, false);
    assert.deepEqual(bodyOf(get(c, '/apis', { accept: AGGREGATED_ACCEPT })), corpus('aggregated-apis.json'));
    assert.deepEqual(bodyOf(get(c, '/api', { accept: AGGREGATED_ACCEPT })), corpus('aggregated-api.json'));
    // widgets: manifest order v2alpha1, v1beta1, v1, v1alpha1 (not served) -> priority order
    assert.deepEqual(c.versionsOf('multi.example.com', 'widgets').map((r) => r.version), ['v1', 'v1beta1', 'v2alpha1']);
    assert.deepEqual(bodyOf(get(c, '/apis/multi.example.com')).preferredVersion, { groupVersion: 'multi.example.com/v1', version: 'v1' });
    assert.equal(get(c, '/apis/multi.example.com/v1alpha1').status, 404);
    const legacy = bodyOf(get(c, '/apis')).groups.map((g: Obj) => g.name);
    assert.deepEqual(legacy.slice(-5), ['alpha.example.com', 'beta.example.com', 'multi.example.com', 'shadow.example.com', 'stable.example.com']);
  });

  test('a CRD without Established=True is ignored; two CRDs of one group share its entry until both go', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const [pods, deployments] = corpusCrds();
    c.crdChanged({ ...pods!, status: { conditions: [{ type: 'Established', status: 'False' }] } }, false);
    assert.equal(get(c, '/apis/shadow.example.com/v1').status, 404);
    c.crdChanged(pods!, false);
    c.crdChanged(deployments!, false);
    assert.deepEqual(bodyOf(get(c, '/apis/shadow.example.com/v1')).resources.map((r: Obj) => r.name), ['deployments', 'pods']);
    c.crdChanged(pods!, true);
    assert.deepEqual(bodyOf(get(c, '/apis/shadow.example.com/v1')).resources.map((r: Obj) => r.name), ['deployments']);
    c.crdChanged(deployments!, true);
    assert.equal(get(c, '/apis/shadow.example.com').status, 404);
  });

  test('the ETag changes when a CRD changes, and stays while nothing does', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const before = get(c, '/apis', { accept: AGGREGATED_ACCEPT }).headers.etag;
    assert.equal(get(c, '/apis', { accept: AGGREGATED_ACCEPT }).headers.etag, before);
    c.crdChanged(recordedCrd(), false);
    const after = get(c, '/apis', { accept: AGGREGATED_ACCEPT, 'if-none-match': before });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.etag, before);
  });

  // How long registering and serving take is a benchmark: `npm run bench -- --case 'server-catalog-*'`.
  test('1,000 CRD groups: registered and served in /apis in order, again and again', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    for (let i = 0; i < 1000; i++) {
      const group = `g${String(i).padStart(4, '0')}.bench.example.com`;
      c.crdChanged(established({ metadata: { name: `things.${group}` }, spec: { group, scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true }] } }), false);
      c.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    }
    const doc = bodyOf(get(c, '/apis', { accept: AGGREGATED_ACCEPT }));
    for (let i = 0; i < 50; i++) get(c, '/apis', { accept: AGGREGATED_ACCEPT });
    assert.equal(doc.items.length, 19 + 1000);
    assert.equal(doc.items[19].metadata.name, 'g0000.bench.example.com');
  });
});
