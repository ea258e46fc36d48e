import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { resourcePath, pathSegmentProblem, InvalidPathSegmentError, compactQuery, formatQuery } from '../../../src/dynamic/url.js';

const pods = { group: '', version: 'v1', resource: 'pods' };
const crontabs = { group: 'stable.example.com', version: 'v1', resource: 'crontabs' };

describe('resourcePath', () => {
  const cases: Array<[string, Parameters<typeof resourcePath>[0], string]> = [
    ['core collection, all namespaces', { gvr: pods }, '/api/v1/pods'],
    ['core collection in a namespace', { gvr: pods, namespace: 'demo' }, '/api/v1/namespaces/demo/pods'],
    ['core object', { gvr: pods, namespace: 'demo', name: 'web' }, '/api/v1/namespaces/demo/pods/web'],
    ['subresource', { gvr: pods, namespace: 'demo', name: 'web', subresource: 'status' }, '/api/v1/namespaces/demo/pods/web/status'],
    ['group collection', { gvr: crontabs, namespace: 'capture' }, '/apis/stable.example.com/v1/namespaces/capture/crontabs'],
    ['cluster-scoped group object', { gvr: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, name: 'crontabs.stable.example.com' }, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com'],
    ['empty namespace means none', { gvr: pods, namespace: '' }, '/api/v1/pods'],
    ['names with dots, colons and @ are fine', { gvr: pods, namespace: 'a', name: 'x.y:z@w' }, '/api/v1/namespaces/a/pods/x.y:z@w'],
  ];
  for (const [what, input, want] of cases) test(what, () => assert.equal(resourcePath(input), want));

  const bad: Array<[string, Parameters<typeof resourcePath>[0], RegExp]> = [
    ['name ..', { gvr: pods, namespace: 'a', name: '..' }, /invalid name "\.\.": may not be '\.\.'/],
    ['name .', { gvr: pods, namespace: 'a', name: '.' }, /may not be '\.'/],
    ['name with slash', { gvr: pods, namespace: 'a', name: 'a/../../secrets' }, /invalid name .*may not contain '\/'/],
    ['name with percent', { gvr: pods, namespace: 'a', name: 'a%2fb' }, /may not contain '%'/],
    ['empty name', { gvr: pods, namespace: 'a', name: '' }, /invalid name "": may not be empty/],
    ['namespace with slash', { gvr: pods, namespace: 'a/b' }, /invalid namespace/],
    ['control characters', { gvr: pods, namespace: 'a', name: 'x\r\nHost: evil' }, /control characters/],
    ['resource with slash', { gvr: { group: '', version: 'v1', resource: 'pods/status' } }, /invalid resource/],
    ['group ..', { gvr: { group: '..', version: 'v1', resource: 'x' } }, /invalid group/],
    ['empty version', { gvr: { group: 'g', version: '', resource: 'x' } }, /invalid version/],
    ['subresource without a name', { gvr: pods, namespace: 'a', subresource: 'status' }, /needs an object name/],
  ];
  for (const [what, input, re] of bad) {
    test(`rejects ${what}`, () => assert.throws(() => resourcePath(input), (e: unknown) => e instanceof InvalidPathSegmentError && re.test((e as Error).message)));
  }
});

test('pathSegmentProblem accepts ordinary names', () => {
  for (const ok of ['web', 'a.b', 'crontabs.stable.example.com', 'x-1', '...']) assert.equal(pathSegmentProblem(ok), undefined, ok);
});

test('compactQuery drops undefined and empty values, keeps 0 and false', () => {
  assert.deepEqual(compactQuery({ a: undefined, b: '', c: 0, d: false, e: 'x' }), { c: 0, d: false, e: 'x' });
  assert.equal(formatQuery({ labelSelector: 'app=web', limit: 2 }), '?labelSelector=app%3Dweb&limit=2');
});
