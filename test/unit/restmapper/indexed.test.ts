/**
 * Index-based resolution (DeferredRESTMapper over `discovery.lookup`, backed by the combined file's
 * lookup index) must give exactly what the full mapper gives: same collections in the same order,
 * same short-name warnings, same errors. Checked for every input of the 550-name kubectl corpus, and
 * for hand-built collisions (Kind forms, group prefixes, reordered versions). It must also answer every
 * input that resolves without taking the full snapshot (the index misses nothing). Both indexes are
 * checked: the one in the combined file (discovery/combined.ts) and the RESTMapper's own name index
 * (restmapper/name-index.ts), serialised as its own file and read back.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAggregatedDiscovery } from '../../../src/discovery/aggregated.js';
import { combinedSnapshot, decodeCombined, encodeCombined, formatCombined, indexedSnapshot, parseCombined, type CombinedCache } from '../../../src/discovery/combined.js';
import { dropUnsafeNames } from '../../../src/discovery/names.js';
import type { CachedDiscovery, DiscoverySnapshot } from '../../../src/discovery/types.js';
import { resolveGetArgs } from '../../../src/restmapper/args.js';
import { DeferredRESTMapper } from '../../../src/restmapper/deferred.js';
import { buildNameIndex, groupsFor } from '../../../src/restmapper/name-index.js';
import { staticDiscovery } from '../../../src/discovery/static.js';
import { COLLIDING, collectionPath, readCorpusCases, readCorpusJSON, snapshot as build } from './snapshot.js';

const SERVER = 'https://h';

/** The combined file kdyn would write for `s` (aggregated: core in /api, the rest in /apis). */
function combinedText(s: DiscoverySnapshot): string {
  const part = (core: boolean): DiscoverySnapshot => {
    const groups = s.groups.filter((g) => (g.name === '') === core);
    const keys = new Set(groups.flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v}` : v))));
    return { groups, resources: new Map([...s.resources].filter(([gv]) => keys.has(gv))), failures: [] };
  };
  const c: CombinedCache = { mode: 'aggregated', server: SERVER, api: { part: part(true) }, apis: { part: part(false) } };
  const index = buildNameIndex(combinedSnapshot(c)); // as src/connect.ts has discovery store it
  return index ? formatCombined(c, index) : formatCombined(c);
}

/** How a lookup of a token selects groups of the snapshot `s` (undefined: no index). */
type Index = (s: DiscoverySnapshot) => (token: string) => DiscoverySnapshot | undefined;

const combinedIndex: Index = (s) => {
  const text = combinedText(s);
  return (token) => indexedSnapshot(text, SERVER, token);
};

/** The groups at `positions` with all their versions' resources, and every failure (as the combined file's lines give them). */
function groupsAt(s: DiscoverySnapshot, positions: readonly number[]): DiscoverySnapshot {
  const groups = positions.map((n) => s.groups[n]!);
  const names = new Set(groups.map((g) => g.name));
  const resources = new Map([...s.resources].filter(([gv]) => names.has(gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '')));
  return { groups, resources, failures: s.failures };
}

const nameIndex: Index = (s) => {
  const index = buildNameIndex(s);
  return (token) => index && groupsAt(s, groupsFor(index, token));
};

const INDEXES: ReadonlyArray<[string, Index]> = [
  ["the combined file's index", combinedIndex],
  ["the RESTMapper's name index", nameIndex],
];

/** Discovery that answers lookups from the index and counts full snapshots taken. */
function indexedDiscovery(select: (token: string) => DiscoverySnapshot | undefined, full: DiscoverySnapshot): CachedDiscovery & { snapshots: number } {
  const d = {
    snapshots: 0,
    snapshot: () => {
      d.snapshots++;
      return Promise.resolve(full);
    },
    lookup: (token: string) => {
      const part = select(token);
      return Promise.resolve(part && dropUnsafeNames(part));
    },
    invalidate: () => {},
    fresh: () => true,
  };
  return d;
}

/** What `kdyn get INPUT` resolves to: collections and warnings, or the error message. */
async function outcome(input: string, discovery: CachedDiscovery): Promise<string> {
  const warnings: string[] = [];
  const mapper = new DeferredRESTMapper(discovery, { warn: (m) => warnings.push(m) });
  try {
    const plan = await resolveGetArgs([input], mapper);
    return `${plan.requests.map((r) => `${collectionPath(r.mapping.gvr)} ${r.mapping.gvk.kind} ${r.mapping.subresources.join(',')}`).join(' | ')} :: ${warnings.join(' | ')}`;
  } catch (e) {
    return `error ${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

async function compare(s: DiscoverySnapshot, inputs: readonly string[], index: Index): Promise<{ answered: number; resolved: number }> {
  const select = index(s);
  let answered = 0;
  let resolved = 0;
  for (const input of inputs) {
    const full = await outcome(input, staticDiscovery(s));
    const d = indexedDiscovery(select, s);
    assert.equal(await outcome(input, d), full, input);
    if (!full.startsWith('error ')) {
      resolved++;
      assert.equal(d.snapshots, 0, `${input}: resolved, but not from the index alone`);
    }
    if (d.snapshots === 0) answered++;
  }
  return { answered, resolved };
}

for (const [name, index] of INDEXES) describe(`index-based resolution agrees with the full mapper: ${name}`, () => {
  test('every corpus input (550 names, kubectl v1.32.4 on a real server)', async () => {
    const s = parseAggregatedDiscovery(readCorpusJSON('aggregated-api.json'), readCorpusJSON('aggregated-apis.json'));
    const inputs = readCorpusCases().map((c) => c.input);
    assert.equal(inputs.length, 550);
    // Upper-cased and Kind spellings of every input too.
    const all = [...inputs, ...inputs.map((i) => i.toUpperCase())];
    for (const list of s.resources.values()) for (const r of list) if (!r.name.includes('/')) all.push(r.kind, `${r.kind}.${r.group}`, `${r.kind}.${r.version}.${r.group}`);
    const { answered, resolved } = await compare(s, all, index);
    assert.ok(resolved > 1000, `only ${resolved} inputs resolved`);
    assert.ok(answered >= resolved);
  });

  test('hand-built collisions, Kind forms, group prefixes, categories, reordered and non-ASCII inputs', async () => {
    const s = build(COLLIDING);
    // A group whose preferred version is not listed first.
    s.groups.find((g) => g.name === 'multi.example.com')!.preferredVersion = 'v1beta1';
    const inputs = [
      'pods', 'po', 'PO', 'Pod', 'pod', 'pods.v1.', 'pods.shadow.example.com', 'shp', 'cm', 'cm.multi.example.com', 'ev', 'ev.events.k8s.io',
      'deploy', 'deploy.apps', 'deploy.shadow', 'Deployment.v1.apps', 'deployment.shadow.example.com', 'dp', 'dups', 'dups.alpha.example.com',
      'foo', 'foos', 'Bar', 'bar.odd.example.com', 'gizmos.things.io', 'gizmos.things', 'gizmo.things.io.extra', 'gizmos', 'storageclass.storage',
      'sc.stor', 'cj.bat', 'hpa', 'horizontalpodautoscalers.v1.autoscaling', 'widgets', 'wd.v1beta1.multi.example.com', 'Widget.v2alpha1.multi.example.com',
      'all', 'gadgets', 'all,gadgets', 'pods,svc', 'nope', 'nope.apps', 'pods.v9.', 'pôds', 'Σ', '', ',', 'PODS.V1.', 'endpoints', 'endpoint',
    ];
    await compare(s, inputs, index);
  });
});

describe('the lookup index in the combined file', () => {
  test('lists each token with every group serving it, and round-trips through parseCombined unchanged', () => {
    const s = build(COLLIDING);
    const text = combinedText(s);
    const groupsOf = (t: string) => indexedSnapshot(text, SERVER, t)!.groups.map((g) => g.name);
    assert.deepEqual(groupsOf('deploy'), ['apps', 'shadow.example.com']);
    assert.deepEqual(groupsOf('cm'), ['', 'multi.example.com']);
    assert.deepEqual(groupsOf('bar'), ['odd.example.com']);
    assert.deepEqual(groupsOf('gadgets'), ['multi.example.com']);
    assert.deepEqual(groupsOf('nothing-here'), []);
    assert.deepEqual(groupsOf('__proto__'), []);
    // All versions of a selected group, with their subresources.
    const multi = indexedSnapshot(text, SERVER, 'widget')!;
    assert.deepEqual([...multi.resources.keys()], ['multi.example.com/v1', 'multi.example.com/v1beta1', 'multi.example.com/v2alpha1']);
    assert.ok(indexedSnapshot(text, SERVER, 'pods')!.resources.get('v1')!.some((r) => r.name === 'pods/log'));
    assert.equal(indexedSnapshot(text, 'https://other', 'pods'), undefined);
    assert.equal(encodeCombined(decodeCombined(text)), text, 'decode and encode are inverse');
    assert.deepEqual(parseCombined(text, SERVER) && 'ok', 'ok');
    // A lookup is answered from the header and the selected groups' lines: other lines are not read.
    const lines = text.split('\n');
    const spoiled = [lines[0], ...lines.slice(1, -1).map((l) => (l.includes('"multi.example.com"') ? l : '{not json')), ''].join('\n');
    const fixedHeader = spoiled.replace(/"body":\d+/, `"body":${spoiled.length - spoiled.indexOf('\n') - 1}`);
    assert.deepEqual(indexedSnapshot(fixedHeader, SERVER, 'gadgets')!.groups.map((g) => g.name), ['multi.example.com']);
    assert.equal(parseCombined(fixedHeader, SERVER), undefined, 'the whole file does not parse');
  });

  test('no index when a group-version lacks resources, or for a malformed index: the whole file is used', () => {
    const s = build(COLLIDING);
    s.groups.find((g) => g.name === 'batch')!.versions.push('v1beta1'); // failed when cached
    const text = combinedText(s);
    assert.equal(decodeCombined(text).index, undefined);
    assert.equal(indexedSnapshot(text, SERVER, 'pods'), undefined);
    const good = decodeCombined(combinedText(build(COLLIDING)));
    for (const bad of [{ pods: 'x' }, { pods: [999] }, { pods: [-1] }, { pods: [0.5] }, []]) {
      assert.equal(indexedSnapshot(encodeCombined({ ...good, index: bad }), SERVER, 'pods'), undefined, JSON.stringify(bad));
    }
    // A selected group that does not validate is refused, like the whole file would be.
    const broken = JSON.parse(JSON.stringify(good)) as { api: { part: { resources: Array<[string, Array<Record<string, unknown>>]> } } };
    broken.api.part.resources[0]![1][0]!.namespaced = 'yes';
    assert.equal(indexedSnapshot(encodeCombined(broken), SERVER, 'pods'), undefined);
    // A truncated file: neither a lookup nor the whole file is answered from it.
    const full = combinedText(build(COLLIDING));
    assert.equal(indexedSnapshot(full.slice(0, full.length - 10), SERVER, 'pods'), undefined);
    assert.equal(parseCombined(full.slice(0, full.length - 10), SERVER), undefined);
  });
});
