/** Small hand-built DiscoverySnapshots for the RESTMapper tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../support/cli.js';
import { parseAggregatedDiscovery } from '../../../src/discovery/aggregated.js';
import type { APIResource, DiscoverySnapshot } from '../../../src/discovery/types.js';

export interface R {
  name: string;
  kind: string;
  singular?: string;
  namespaced?: boolean;
  short?: string[];
  cats?: string[];
  verbs?: string[];
}

export interface G {
  name: string;
  /** Versions in preference order, each with its resources. */
  versions: Array<[version: string, resources: R[]]>;
}

export function snapshot(groups: G[], failures: DiscoverySnapshot['failures'] = []): DiscoverySnapshot {
  const s: DiscoverySnapshot = { groups: [], resources: new Map(), failures };
  for (const g of groups) {
    s.groups.push({ name: g.name, versions: g.versions.map(([v]) => v), preferredVersion: g.versions[0]?.[0] ?? '' });
    for (const [version, resources] of g.versions) {
      const list: APIResource[] = resources.map((r) => ({
        name: r.name,
        singularName: r.singular ?? (r.name.includes('/') ? '' : r.kind.toLowerCase()),
        namespaced: r.namespaced ?? true,
        group: g.name,
        version,
        kind: r.kind,
        verbs: r.verbs ?? ['get', 'list', 'watch'],
        shortNames: r.short ?? [],
        categories: r.cats ?? [],
      }));
      s.resources.set(g.name ? `${g.name}/${version}` : version, list);
    }
  }
  return s;
}

// Built to collide like the corpus: built-in plurals, kinds and short names reused by CRDs, one short
// name in two groups, a multi-version group, a Kind that differs from its singular, categories.
export const COLLIDING: G[] = [
  {
    name: '',
    versions: [
      [
        'v1',
        [
          { name: 'bindings', kind: 'Binding', verbs: ['create'] },
          { name: 'configmaps', kind: 'ConfigMap', short: ['cm'] },
          { name: 'endpoints', kind: 'Endpoints', singular: 'endpoints', short: ['ep'] },
          { name: 'events', kind: 'Event', short: ['ev'] },
          { name: 'nodes', kind: 'Node', short: ['no'], namespaced: false },
          { name: 'pods', kind: 'Pod', short: ['po'], cats: ['all'], verbs: ['get', 'list', 'watch', 'delete'] },
          { name: 'pods/log', kind: 'Pod' },
          { name: 'pods/status', kind: 'Pod' },
          { name: 'services', kind: 'Service', short: ['svc'], cats: ['all'] },
        ],
      ],
    ],
  },
  {
    name: 'apps',
    versions: [
      [
        'v1',
        [
          { name: 'deployments', kind: 'Deployment', short: ['deploy'], cats: ['all'] },
          { name: 'deployments/scale', kind: 'Scale' },
        ],
      ],
    ],
  },
  { name: 'events.k8s.io', versions: [['v1', [{ name: 'events', kind: 'Event', short: ['ev'] }]]] },
  {
    name: 'autoscaling',
    versions: [
      ['v2', [{ name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', short: ['hpa'], cats: ['all'] }]],
      ['v1', [{ name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', short: ['hpa'], cats: ['all'] }]],
    ],
  },
  { name: 'batch', versions: [['v1', [{ name: 'cronjobs', kind: 'CronJob', short: ['cj'] }]]] },
  { name: 'storage.k8s.io', versions: [['v1', [{ name: 'storageclasses', kind: 'StorageClass', short: ['sc'], namespaced: false }]]] },
  { name: 'alpha.example.com', versions: [['v1', [{ name: 'dups', kind: 'Dup', short: ['dp'] }]]] },
  { name: 'beta.example.com', versions: [['v1', [{ name: 'dups', kind: 'Dup', short: ['dp'] }]]] },
  {
    name: 'multi.example.com',
    versions: [
      [
        'v1',
        [
          { name: 'widgets', kind: 'Widget', short: ['wd'], cats: ['all', 'gadgets'] },
          { name: 'gears', kind: 'Gear', short: ['cm'], cats: ['gadgets'], namespaced: false },
        ],
      ],
      ['v1beta1', [{ name: 'widgets', kind: 'Widget', short: ['wd'], cats: ['all', 'gadgets'] }]],
      ['v2alpha1', [{ name: 'widgets', kind: 'Widget', short: ['wd'], cats: ['all', 'gadgets'] }]],
    ],
  },
  {
    name: 'shadow.example.com',
    versions: [
      [
        'v1',
        [
          { name: 'deployments', kind: 'Deployment', short: ['deploy'], namespaced: false },
          { name: 'pods', kind: 'Pod', short: ['po', 'shp'] },
        ],
      ],
    ],
  },
  // Kind (Bar) differs from the singular (foo).
  { name: 'odd.example.com', versions: [['v1', [{ name: 'foos', kind: 'Bar', singular: 'foo' }]]] },
  // A group that is a prefix-extension of a later one, for the exact-group-first rule.
  { name: 'things.io.extra', versions: [['v1', [{ name: 'gizmos', kind: 'Gizmo' }]]] },
  { name: 'things.io', versions: [['v1', [{ name: 'gizmos', kind: 'Gizmo' }]]] },
];

export const CORPUS_DIR = (): string => join(repoRoot(), 'test', 'fixtures', 'restmapper-corpus');

export interface CorpusCase {
  input: string;
  exit: number;
  /** Collection paths kubectl listed, in order. */
  paths: string[];
  messages: string[];
}

export function readCorpusCases(): CorpusCase[] {
  const lines = readFileSync(join(CORPUS_DIR(), 'cases.tsv'), 'utf8').trimEnd().split('\n');
  if (lines[0] !== 'input\tkubectl_exit\tlist_requests\tkubectl_messages') throw new Error('cases.tsv: unexpected header');
  return lines.slice(1).map((line) => {
    const [input = '', exit = '', reqs = '', msgs = ''] = line.split('\t');
    return { input, exit: Number(exit), paths: reqs ? reqs.split(' ') : [], messages: msgs ? msgs.split('|') : [] };
  });
}

export function readCorpusJSON(name: 'aggregated-api.json' | 'aggregated-apis.json'): unknown {
  return JSON.parse(readFileSync(join(CORPUS_DIR(), name), 'utf8'));
}

/** `/api/v1/pods` or `/apis/apps/v1/deployments` for a GVR. */
export function collectionPath(gvr: { group: string; version: string; resource: string }): string {
  return `${gvr.group ? `/apis/${gvr.group}` : '/api'}/${gvr.version}/${gvr.resource}`;
}

/** The short-name collision warnings kubectl printed (its other Warning: lines come from the server or listing). */
export function shortNameWarnings(messages: string[]): string[] {
  return messages.filter((m) => m.startsWith('Warning: short name ')).map((m) => m.slice('Warning: '.length));
}

/**
 * The recorded corpus plus `groups` CRD groups `g<i>.bench.example.com`, each with two versions, a
 * short name and a category, and all claiming the short name `wd` (for the RESTMapper test of many
 * groups and its benchmark, bench/cases/restmapper.ts).
 */
export function bigSnapshot(groups: number): DiscoverySnapshot {
  const base = parseAggregatedDiscovery(readCorpusJSON('aggregated-api.json'), readCorpusJSON('aggregated-apis.json'));
  const extra: G[] = [];
  for (let i = 0; i < groups; i++) {
    extra.push({
      name: `g${i}.bench.example.com`,
      versions: [
        ['v1', [{ name: `things${i}`, kind: `Thing${i}`, short: [`t${i}`], cats: ['all'] }, { name: `things${i}/status`, kind: `Thing${i}` }, { name: 'widgets', kind: 'Widget', short: ['wd'] }]],
        ['v1beta1', [{ name: `things${i}`, kind: `Thing${i}`, short: [`t${i}`], cats: ['all'] }]],
      ],
    });
  }
  const more = snapshot(extra);
  return {
    groups: [...base.groups, ...more.groups],
    resources: new Map([...base.resources, ...more.resources]),
    failures: [],
  };
}
