/**
 * Issue 5's `kdyn get` targets, plus a few extra measurements of the same kind. Caches are warm (the warm-up runs fill them), so both
 * tools make only their list requests. Ratios are kdyn / kubectl; RSS cases compare peak memory.
 */
import type { BenchCase, ServerOptions } from '../types.js';

const BIG: ServerOptions = { seed: 'empty', configmaps: 20_000, namespace: 'bench' };
const BIG_NS = ['configmaps', '-n', 'bench'];

function get(
  name: string,
  description: string,
  server: ServerOptions,
  max: number,
  kdyn: string[],
  kubectl: string[] = kdyn,
  metric: 'wall' | 'rss' = 'wall',
  runs?: number,
): BenchCase {
  return {
    name,
    description,
    issue: 'issue 5',
    server,
    metric,
    target: { kind: 'ratio', max },
    kdyn: () => kdyn,
    baseline: { kind: 'kubectl', args: () => kubectl },
    ...(runs ? { runs } : {}),
  };
}

export const order = 31;

export const cases: BenchCase[] = [
  get('get-small-warm', 'get namespaces (small list), warm cache', { seed: 'demo' }, 1.0, ['get', 'namespaces']),
  get('get-warm-1000', 'get namespaces, warm cache, 1000 extra CRD groups', { seed: 'empty', extraGroups: 1000 }, 0.5, ['get', 'namespaces']),
  get('get-20k-table', 'get configmaps, 20,000 objects, default table', BIG, 0.8, ['get', ...BIG_NS], undefined, 'wall', 5),
  get('get-20k-name', 'get configmaps -o name, 20,000 objects', BIG, 0.8, ['get', ...BIG_NS, '-o', 'name'], undefined, 'wall', 5),
  get('get-20k-json', 'get configmaps -o json, 20,000 objects', BIG, 0.8, ['get', ...BIG_NS, '-o', 'json'], undefined, 'wall', 5),
  get('get-20k-name-rss', 'peak RSS: get configmaps -o name vs kubectl -o name, 20,000 objects', BIG, 0.5,
    ['get', ...BIG_NS, '-o', 'name'], ['get', ...BIG_NS, '-o', 'name'], 'rss', 3),
  get('get-20k-jsonl-rss', 'peak RSS: get configmaps -o jsonl vs kubectl -o name, 20,000 objects', BIG, 0.5,
    ['get', ...BIG_NS, '-o', 'jsonl'], ['get', ...BIG_NS, '-o', 'name'], 'rss', 3),
  // Extra, same server: the CRD path (server-side printer columns) and a named object.
  get('get-crd-table-warm', 'get rockets -A (CRD printer columns), warm cache', { seed: 'demo' }, 1.0, ['get', 'rockets', '-A']),
  get('get-one-json-warm', 'get configmap app-config -n demo -o json, warm cache', { seed: 'demo' }, 1.0, ['get', 'configmap', 'app-config', '-n', 'demo', '-o', 'json']),
];
