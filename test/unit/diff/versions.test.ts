/**
 * kubectl diff's LIVE and MERGED texts (src/diff/versions.ts): file names, managedFields removed
 * unless asked for, kubectl's Secret masker (only `v1` `Secret`, `data` only, before/after marks),
 * an absent live Secret as `null`, a pruned object against nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJSON, diffFileName, jsonEqual, maskSecretData, versionTexts } from '../../../src/diff/versions.js';

const managed = [{ manager: 'kdyn', operation: 'Apply' }];

test('file names: group.version.Kind.namespace.name, no group for the core group, empty namespace when cluster-scoped', () => {
  assert.equal(diffFileName('apps/v1', 'Deployment', 'web', 'api'), 'apps.v1.Deployment.web.api');
  assert.equal(diffFileName('v1', 'Namespace', undefined, 'web'), 'v1.Namespace..web');
});

test('managedFields are removed from both sides unless showManagedFields; the input objects stay as they are', () => {
  const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: managed }, data: { k: '1' } };
  const merged = { ...live, data: { k: '2' } };
  const t = versionTexts(live, merged);
  assert.equal(t.live, 'apiVersion: v1\ndata:\n  k: "1"\nkind: ConfigMap\nmetadata:\n  name: a\n');
  assert.ok(!t.merged.includes('managedFields'));
  assert.ok(live.metadata.managedFields, 'not mutated');
  assert.match(versionTexts(live, merged, { showManagedFields: true }).merged, /managedFields:\n  - manager: kdyn/);
});

test('a new object: an empty LIVE text; a new Secret: `null`, as kubectl\'s masker prints it', () => {
  assert.equal(versionTexts(null, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }).live, '');
  assert.equal(versionTexts(null, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } }).live, 'null\n');
});

test('the masker: *** everywhere, (before)/(after) for a changed key, only for v1 Secrets, only data', () => {
  const live = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { same: 'YQ==', changed: 'Yg==', gone: 'Yw==' }, stringData: { x: 'y' } };
  const merged = { ...live, data: { same: 'YQ==', changed: 'ZA==', added: 'ZQ==' } };
  const m = maskSecretData(live, merged);
  assert.deepEqual(m.live?.data, { same: '***', changed: '*** (before)', gone: '***' });
  assert.deepEqual(m.merged.data, { same: '***', changed: '*** (after)', added: '***' });
  assert.deepEqual(m.merged.stringData, { x: 'y' }, 'kubectl masks data only');
  const other = { apiVersion: 'v1beta1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'YQ==' } };
  assert.match(versionTexts(null, other).merged, /k: YQ==/, 'not v1: not masked');
  const crdSecret = { apiVersion: 'example.com/v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'YQ==' } };
  assert.match(versionTexts(null, crdSecret).merged, /k: '\*\*\*'/, 'kubectl checks version and kind only');
});

test('a pruned object: its live text (masked when a Secret) against nothing', () => {
  const t = versionTexts({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', managedFields: managed }, data: { k: 'YQ==' } }, null);
  assert.equal(t.merged, '');
  assert.equal(t.live, "apiVersion: v1\ndata:\n  k: '***'\nkind: Secret\nmetadata:\n  name: s\n");
});

test('jsonEqual answers as comparing canonicalJSON texts does, without building them', () => {
  const values: unknown[] = [
    null, undefined, 0, -0, 1, 1.5, NaN, Infinity, '', '1', true, false, [], {}, [null], [undefined], [1, 2], [2, 1],
    { a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, { a: 1, b: [1, { c: 'y' }] }, { a: undefined }, { a: null }, { a: 1, z: undefined },
    { a: { b: {} } }, { a: { b: [] } }, new Date(0), new Date(1), { d: new Date(0) }, { d: '1970-01-01T00:00:00.000Z' }, ['a'], { 0: 'a' },
  ];
  let equalPairs = 0;
  for (const a of values) {
    for (const b of values) {
      const want = canonicalJSON(a) === canonicalJSON(b);
      assert.equal(jsonEqual(a, b), want, `${String(canonicalJSON(a))} vs ${String(canonicalJSON(b))}`);
      if (want && a !== b) equalPairs++;
    }
  }
  assert.ok(equalPairs >= 8, 'key order, undefined keys, -0 and Dates make equal pairs');
});
