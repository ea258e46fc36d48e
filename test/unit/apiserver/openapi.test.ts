// The local API server's OpenAPI v3 documents: the index of recording 50, and group-version documents
// that satisfy what kubectl v1.32 reads from them (cli-runtime's supportsQueryParamV3 for server-side
// field validation, and explain's lookup of x-kubernetes-group-version-kind).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createCatalog } from '../../support/apiserver/catalog.js';
import { loadExchange } from '../../support/exchanges.js';
import type { Obj, RawResponse } from '../../support/apiserver/types.js';

type Gvk = { group: string; version: string; kind: string };
const recordedCrd = () => loadExchange(11).json as Obj;
const json = (r: RawResponse | undefined) => JSON.parse(String(r?.body)) as Obj;
const serve = (c: ReturnType<typeof createCatalog>, path: string, headers: Obj = {}) => {
  const r = c.serveDiscovery('GET', path, headers);
  assert.ok(r, `${path} answered`);
  return r;
};
const index = (c: ReturnType<typeof createCatalog>) => json(serve(c, '/openapi/v3')).paths as Record<string, { serverRelativeURL: string }>;
const gvDoc = (c: ReturnType<typeof createCatalog>, key: string) => json(serve(c, index(c)[key]!.serverRelativeURL));

/** What kubectl's queryParamVerifierV3 decides (cli-runtime/pkg/resource/query_param_verifier_v3.go). */
function supportsFieldValidation(doc: Obj, gvk: Gvk): 'supported' | 'unsupported' | 'path not found' {
  for (const item of Object.values(doc.paths as Record<string, Obj>)) {
    const op = item.patch;
    const ext = op?.['x-kubernetes-group-version-kind'];
    if (!ext || ext.group !== gvk.group || ext.version !== gvk.version || ext.kind !== gvk.kind) continue;
    return (op.parameters ?? []).some((p: Obj) => p.name === 'fieldValidation' && p.in === 'query') ? 'supported' : 'unsupported';
  }
  return 'path not found';
}

describe('/openapi/v3 index', () => {
  test('recording 50: the same keys, each a serverRelativeURL with the hash of its document', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const rec = loadExchange(50);
    const r = serve(c, '/openapi/v3');
    assert.equal(r.status, rec.status);
    assert.equal(r.headers['content-type'], rec.responseHeaders['content-type']);
    const paths = json(r).paths;
    assert.deepEqual(Object.keys(paths), Object.keys((rec.json as Obj).paths));
    for (const [key, value] of Object.entries(paths as Record<string, Obj>)) {
      assert.deepEqual(Object.keys(value), ['serverRelativeURL']);
      const m = /^\/openapi\/v3\/(.+)\?hash=([0-9A-F]{128})$/.exec(value.serverRelativeURL);
      assert.ok(m && m[1] === key, value.serverRelativeURL);
      const doc = serve(c, value.serverRelativeURL);
      assert.equal(doc.status, 200, key);
      assert.equal(createHash('sha512').update(doc.body).digest('hex').toUpperCase(), m[2], `hash of ${key}`);
      assert.equal(doc.headers['cache-control'], 'public, immutable');
      assert.equal(json(doc).openapi, '3.0.0');
    }
  });

  test('a stale hash is redirected to the current one; unknown documents are 404', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const current = index(c)['apis/apps/v1']!.serverRelativeURL;
    const r = serve(c, '/openapi/v3/apis/apps/v1?hash=0123');
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, current);
    assert.equal(serve(c, '/openapi/v3/apis/stable.example.com/v1').status, 404);
    assert.equal(serve(c, '/openapi/v3/apis/apps/v1').headers['cache-control'], 'no-cache, private', 'without a hash: not cacheable');
    const etag = serve(c, current).headers.etag;
    assert.equal(serve(c, current, { 'if-none-match': etag }).status, 304);
  });
});

describe('group-version documents', () => {
  test('every built-in kind that can be created or patched declares fieldValidation on a PATCH operation', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    let checked = 0;
    for (const g of c.groups()) {
      for (const v of g.versions) {
        const doc = gvDoc(c, g.name ? `apis/${g.name}/${v.version}` : `api/${v.version}`);
        for (const r of v.resources) {
          if (!r.verbs.includes('patch') && !r.verbs.includes('create')) continue;
          assert.equal(supportsFieldValidation(doc, { group: g.name, version: v.version, kind: r.kind }), 'supported', `${r.resource}.${v.version}.${g.name}`);
          checked++;
        }
      }
    }
    assert.equal(checked, 58, 'kinds with create or patch in the recorded built-in API');
  });

  test('namespaces and configmaps: operations and schemas kubectl create/apply/explain look for', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const doc = gvDoc(c, 'api/v1');
    const cm = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
    assert.equal(cm.post['x-kubernetes-action'], 'post');
    assert.deepEqual(cm.post['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.ok(doc.paths['/api/v1/namespaces/{name}'].patch, 'namespace item path');
    assert.ok(!('application/strategic-merge-patch+json' in doc.paths['/api/v1/namespaces/{name}'].patch.requestBody.content), 'no SMP: kubectl apply uses its compiled-in patch strategies');
    assert.deepEqual(doc.components.schemas['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[^"]+/g) ?? [];
    for (const ref of new Set(refs)) assert.ok(doc.components.schemas[ref.slice('#/components/schemas/'.length)], `${ref} resolves`);
  });

  test('a CRD gets one document per served version with its openAPIV3Schema, and loses it when deleted', () => {
    const c = createCatalog({ discovery: 'aggregated' });
    const appsBefore = index(c)['apis/apps/v1']!.serverRelativeURL;
    c.crdChanged(recordedCrd(), false);
    const keys = Object.keys(index(c));
    assert.ok(keys.includes('apis/stable.example.com/v1') && keys.includes('apis/stable.example.com/v1beta1'), keys.join(' '));
    assert.equal(index(c)['apis/apps/v1']!.serverRelativeURL, appsBefore, 'other documents keep their hash');
    const doc = gvDoc(c, 'apis/stable.example.com/v1');
    const gvk = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
    assert.equal(supportsFieldValidation(doc, gvk), 'supported');
    const schema = doc.components.schemas['com.example.stable.v1.CronTab'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    assert.equal(schema.properties.spec.properties.cronSpec.type, 'string');
    assert.equal(schema.properties.metadata.allOf[0].$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    // explain finds the GVK on the collection path's operations
    assert.deepEqual(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs'].get['x-kubernetes-group-version-kind'], gvk);
    assert.deepEqual(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale'].patch['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const beta = gvDoc(c, 'apis/stable.example.com/v1beta1').components.schemas['com.example.stable.v1beta1.CronTab'];
    assert.equal(beta['x-kubernetes-preserve-unknown-fields'], true);
    const v1Url = index(c)['apis/stable.example.com/v1']!.serverRelativeURL;
    c.crdChanged(recordedCrd(), true);
    assert.ok(!Object.keys(index(c)).some((k) => k.includes('stable.example.com')));
    assert.equal(serve(c, v1Url).status, 404);
  });
});
