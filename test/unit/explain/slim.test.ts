/**
 * The slim document kept per resource (src/explain/slim.ts) explains exactly as the whole document
 * does: every resource of the recorded v1.32 documents (test/fixtures/openapi-v3), at the top and along
 * field paths, with and without --recursive, and the errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordedOpenApiDocuments } from '../../support/apiserver/openapi-fixtures.js';
import { repoRoot } from '../../support/cli.js';
import { renderExplain, ExplainError } from '../../../src/explain/render.js';
import { slimDocument } from '../../../src/explain/slim.js';
import type { GroupVersionResource } from '../../../src/core/gvk.js';

const docs = recordedOpenApiDocuments(repoRoot());

function render(document: unknown, gvr: GroupVersionResource, fieldPath: string[], recursive: boolean): string {
  try {
    return renderExplain({ document, gvr, fieldPath, recursive });
  } catch (e) {
    if (e instanceof ExplainError) return `${e.output}ERROR ${e.message}`;
    throw e;
  }
}

const cases: Array<[string, GroupVersionResource, string[][]]> = [
  ['api/v1', { group: '', version: 'v1', resource: 'pods' }, [[], ['spec'], ['spec', 'containers'], ['spec', 'containers', 'ports', 'protocol'], ['metadata', 'labels'], ['status', 'nosuch'], ['nosuch']]],
  ['api/v1', { group: '', version: 'v1', resource: 'configmaps' }, [[], ['data'], ['binaryData']]],
  ['apis/apps/v1', { group: 'apps', version: 'v1', resource: 'deployments' }, [[], ['spec', 'strategy'], ['spec', 'template', 'spec', 'volumes'], ['x']]],
];

test('the slim document explains as the whole one', () => {
  for (const [key, gvr, paths] of cases) {
    const doc = docs.get(key)!;
    const slim = slimDocument(doc, gvr);
    assert.ok(slim, `${key} ${gvr.resource}: slimmed`);
    assert.ok(JSON.stringify(slim).length < JSON.stringify(doc).length);
    for (const fieldPath of paths) {
      for (const recursive of [false, true]) {
        assert.equal(render(slim, gvr, fieldPath, recursive), render(doc, gvr, fieldPath, recursive), `${gvr.resource} ${fieldPath.join('.')} recursive=${recursive}`);
      }
    }
  }
});

test('a resource the document does not serve: the same error from the slim document', () => {
  const gvr = { group: '', version: 'v1', resource: 'nosuch' };
  const doc = docs.get('api/v1')!;
  assert.equal(render(slimDocument(doc, gvr), gvr, [], false), render(doc, gvr, [], false));
});

test('a $ref outside the component schemas: no slim document (the whole one is used)', () => {
  const gvr = { group: 'x.dev', version: 'v1', resource: 'things' };
  const doc = {
    paths: { '/apis/x.dev/v1/things': { get: { 'x-kubernetes-group-version-kind': { group: 'x.dev', version: 'v1', kind: 'Thing' } } } },
    components: { schemas: { 'dev.x.v1.Thing': { 'x-kubernetes-group-version-kind': [{ group: 'x.dev', kind: 'Thing', version: 'v1' }], properties: { a: { $ref: '#/paths/elsewhere' } } } } },
  };
  assert.equal(slimDocument(doc, gvr), undefined);
  const ok = { ...doc, components: { schemas: { 'dev.x.v1.Thing': { 'x-kubernetes-group-version-kind': [{ group: 'x.dev', kind: 'Thing', version: 'v1' }], type: 'object' } } } };
  assert.equal(render(slimDocument(ok, gvr), gvr, [], false), render(ok, gvr, [], false), 'the kind tags match whatever the order of their keys');
});
