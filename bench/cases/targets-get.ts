/**
 * Issue 5's targets for `kdyn get` (stand-ins: a case of the same name in another file, e.g.
 * bench/cases/get.ts, replaces each of these). Caches are warm (filled by the warm-up runs): both
 * tools make their list requests only.
 */
import type { BenchCase, ServerOptions } from '../types.js';

const BIG: ServerOptions = { seed: 'empty', configmaps: 20_000, namespace: 'bench' };

function get(name: string, description: string, server: ServerOptions, max: number, kdyn: string[], kubectl: string[] = kdyn, metric: 'wall' | 'rss' = 'wall'): BenchCase {
  return {
    name,
    description,
    issue: 'issue 5',
    server,
    metric,
    target: { kind: 'ratio', max },
    kdyn: () => kdyn,
    baseline: { kind: 'kubectl', args: () => kubectl },
    stub: true,
  };
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 30;

export const cases: BenchCase[] = [
  get('get-small-warm', 'get namespaces (small list), warm cache', { seed: 'demo' }, 1.0, ['get', 'namespaces']),
  get('get-warm-1000', 'get namespaces, warm cache, 1000 extra CRD groups', { seed: 'empty', extraGroups: 1000 }, 0.5, ['get', 'namespaces']),
  get('get-20k-table', 'get configmaps, 20,000 objects, default table', BIG, 0.8, ['get', 'configmaps', '-n', 'bench']),
  get('get-20k-name', 'get configmaps -o name, 20,000 objects', BIG, 0.8, ['get', 'configmaps', '-n', 'bench', '-o', 'name']),
  get('get-20k-json', 'get configmaps -o json, 20,000 objects', BIG, 0.8, ['get', 'configmaps', '-n', 'bench', '-o', 'json']),
  get('get-20k-name-rss', 'peak RSS: get configmaps -o name vs kubectl -o name, 20,000 objects', BIG, 0.5,
    ['get', 'configmaps', '-n', 'bench', '-o', 'name'], ['get', 'configmaps', '-n', 'bench', '-o', 'name'], 'rss'),
  get('get-20k-jsonl-rss', 'peak RSS: get configmaps -o jsonl vs kubectl -o name, 20,000 objects', BIG, 0.5,
    ['get', 'configmaps', '-n', 'bench', '-o', 'jsonl'], ['get', 'configmaps', '-n', 'bench', '-o', 'name'], 'rss'),
];
