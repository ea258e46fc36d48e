import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAggregatedDiscovery } from '../../../src/discovery/aggregated.js';
import { combinedSnapshot, decodeCombined, encodeCombined, formatCombined, parseCombined } from '../../../src/discovery/combined.js';
import { formatAPIGroupList, formatAPIResourceList, parseAPIGroupList, parseAPIResourceList } from '../../../src/discovery/legacy.js';
import { readJSON } from './fixtures.js';

const snap = () => parseAggregatedDiscovery(readJSON('aggregated-api.json'), readJSON('aggregated-apis.json'));

describe("kubectl's file formats", () => {
  test('servergroups.json round-trips and matches /apis legacy group list (recording 03)', () => {
    const s = parseAggregatedDiscovery(readJSON('06-aggregated-api.http'), readJSON('07-aggregated-apis.http'));
    const text = formatAPIGroupList(s.groups);
    const doc = JSON.parse(text) as { kind: string; apiVersion: string; groups: unknown[] };
    assert.equal(doc.kind, 'APIGroupList');
    assert.equal(doc.apiVersion, 'v1');
    const legacy = readJSON('03-legacy-apis.http') as { groups: unknown[] };
    assert.deepEqual(doc.groups.slice(1), legacy.groups);
    assert.deepEqual(parseAPIGroupList(doc), s.groups);
  });

  test('serverresources.json for apps/v1 equals the server legacy list minus storageVersionHash (recording 05)', () => {
    const s = parseAggregatedDiscovery(readJSON('06-aggregated-api.http'), readJSON('07-aggregated-apis.http'));
    const mine = JSON.parse(formatAPIResourceList('apps/v1', s.resources.get('apps/v1')!)) as { resources: Array<Record<string, unknown>> };
    const legacy = readJSON('05-legacy-apps-v1.http') as { resources: Array<Record<string, unknown>> };
    // Subresources: aggregated discovery gives them the parent's singular name, as kubectl writes them.
    const strip = (r: Record<string, unknown>) => {
      const { storageVersionHash: _h, singularName: _s, ...rest } = r;
      return rest;
    };
    assert.deepEqual(mine.resources.map(strip), legacy.resources.map(strip));
    assert.deepEqual(parseAPIResourceList(mine, 'apps', 'v1'), s.resources.get('apps/v1'));
  });

  test('parseAPIResourceList refuses wrong documents', () => {
    assert.throws(() => parseAPIResourceList({ kind: 'APIGroupList', groups: [] }, 'apps', 'v1'), TypeError);
    assert.throws(() => parseAPIResourceList({ groupVersion: 'batch/v1', resources: [] }, 'apps', 'v1'), TypeError);
    assert.throws(() => parseAPIResourceList({ resources: [{ name: 3 }] }, 'apps', 'v1'), TypeError);
    assert.throws(() => parseAPIGroupList({ kind: 'APIResourceList' }), TypeError);
  });
});

describe('combined file', () => {
  test('round-trips a snapshot with ETags', () => {
    const s = snap();
    const core = parseAggregatedDiscovery(readJSON('aggregated-api.json'), undefined);
    const groups = parseAggregatedDiscovery(undefined, readJSON('aggregated-apis.json'));
    const text = formatCombined({ mode: 'aggregated', server: 'https://h', api: { etag: '"a"', part: core }, apis: { etag: '"b"', part: groups } });
    const back = parseCombined(text, 'https://h')!;
    assert.equal(back.mode, 'aggregated');
    assert.equal(back.mode === 'aggregated' && back.apis.etag, '"b"');
    assert.deepEqual(combinedSnapshot(back), s);
  });

  test('corrupted, truncated, wrongly typed or foreign files are rejected', () => {
    const text = formatCombined({ mode: 'legacy', server: 'https://h', snapshot: snap() });
    assert.ok(parseCombined(text, 'https://h'));
    assert.equal(parseCombined(text, 'https://other'), undefined);
    assert.equal(parseCombined(text.slice(0, text.length / 2), 'https://h'), undefined);
    assert.equal(parseCombined('', 'https://h'), undefined);
    assert.equal(parseCombined('\u0000\u0001garbage', 'https://h'), undefined);
    assert.equal(parseCombined('[]', 'https://h'), undefined);
    const wrong = decodeCombined(text) as { snapshot: { part: { resources: Array<[string, Array<Record<string, unknown>>]> } } };
    wrong.snapshot.part.resources[0]![1][0]!.verbs = 'get';
    assert.equal(parseCombined(encodeCombined(wrong), 'https://h'), undefined);
  });
});
