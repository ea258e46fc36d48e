/**
 * The RESTMapper's name index (src/restmapper/name-index.ts): its keys, and that discovery's combined
 * cache file stores it unchanged (the composition root passes it to discovery). Resolution through it
 * is checked against the full mapper in indexed.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAggregatedDiscovery } from '../../../src/discovery/aggregated.js';
import { decodeCombined, formatCombined } from '../../../src/discovery/combined.js';
import { buildNameIndex, categoryToken, groupsFor, lookupToken } from '../../../src/restmapper/name-index.js';
import { COLLIDING, readCorpusJSON, snapshot as build } from './snapshot.js';

const FROM = { server: 'https://h' };

test('lookup tokens: the lower-cased first name segment; the whole name for a category; none for non-ASCII', () => {
  assert.equal(lookupToken('Deployment.v1.apps'), 'deployment');
  assert.equal(lookupToken('pods.v1.'), 'pods');
  assert.equal(lookupToken(''), '');
  assert.equal(lookupToken('pôds'), undefined);
  assert.equal(categoryToken('All'), 'all');
  assert.equal(categoryToken('a.b'), 'a.b');
  assert.equal(categoryToken('Σ'), undefined);
});

test('keys: plural, singular, Kind, short names and categories, each with every group serving it, in group order', () => {
  const s = build(COLLIDING);
  const index = buildNameIndex(s)!;
  const names = (token: string) => groupsFor(index, token).map((n) => s.groups[n]!.name);
  assert.deepEqual(names('deploy'), ['apps', 'shadow.example.com']);
  assert.deepEqual(names('cm'), ['', 'multi.example.com']);
  assert.deepEqual(names('pod'), ['', 'shadow.example.com'], 'singular and Kind');
  assert.deepEqual(names('gadgets'), ['multi.example.com']);
  assert.deepEqual(names('nothing-here'), []);
  assert.deepEqual(names('__proto__'), []);
  assert.equal([...index.keys()].some((k) => k.includes('/')), false, 'subresources are not keys');
});

test('the combined file stores it as built, for the kubectl corpus and the hand-built collisions; without one it stores none', () => {
  const corpus = parseAggregatedDiscovery(readCorpusJSON('aggregated-api.json'), readCorpusJSON('aggregated-apis.json'));
  for (const s of [corpus, build(COLLIDING)]) {
    assert.equal(decodeCombined(formatCombined({ mode: 'legacy', server: FROM.server, snapshot: s })).index, undefined);
    const inFile = decodeCombined(formatCombined({ mode: 'legacy', server: FROM.server, snapshot: s }, buildNameIndex(s))).index;
    assert.ok(inFile);
    assert.deepEqual(Object.fromEntries(buildNameIndex(s)!), inFile);
  }
});

test('no index when a group-version lacks resources (it would be asked for again); a stale one is indexed', () => {
  const s = build(COLLIDING);
  s.groups.find((g) => g.name === 'batch')!.versions.push('v1beta1');
  assert.equal(buildNameIndex(s), undefined);
  s.failures.push({ groupVersion: 'batch/v1beta1', reason: 'stale', message: 'stale' });
  assert.ok(buildNameIndex(s));
});
