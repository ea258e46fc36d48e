/**
 * The local API server's parts in-process (issue 3): its catalog with 1,000 CRD groups and its store
 * paging 20,000 objects. These were thresholds in test/unit/apiserver/discovery.test.ts and
 * storage.test.ts, which keep the behaviour; the server over HTTP is bench/cases/local-apiserver.ts.
 */
import { performance } from 'node:perf_hooks';
import { createCatalog } from '../../test/support/apiserver/catalog.js';
import { Store } from '../../test/support/apiserver/storage.js';
import { loadExchange } from '../../test/support/exchanges.js';
import type { Obj } from '../../test/support/apiserver/types.js';
import type { BenchCase } from '../types.js';

const GROUPS = 1000;
const OBJECTS = 20_000;
const CACHED_REQUESTS = 50;

interface CatalogTimes {
  /** Registering GROUPS established CRDs, each followed by a lookup. */
  registerMs: number;
  /** The first aggregated /apis after them (builds the document). */
  firstApisMs: number;
  /** Mean of the next CACHED_REQUESTS aggregated /apis. */
  cachedApisMs: number;
}

function timeCatalog(): CatalogTimes {
  const accept = loadExchange(7).requestHeaders.accept!;
  const c = createCatalog({ discovery: 'aggregated' });
  const apis = () => {
    if (!c.serveDiscovery('GET', '/apis', { accept })) throw new Error('/apis not answered');
  };
  let t = performance.now();
  for (let i = 0; i < GROUPS; i++) {
    const group = `g${String(i).padStart(4, '0')}.bench.example.com`;
    const crd: Obj = {
      metadata: { name: `things.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true }] },
      status: { conditions: [{ type: 'Established', status: 'True' }] },
    };
    c.crdChanged(crd, false);
    c.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  }
  const registerMs = performance.now() - t;
  t = performance.now();
  apis();
  const firstApisMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < CACHED_REQUESTS; i++) apis();
  return { registerMs, firstApisMs, cachedApisMs: (performance.now() - t) / CACHED_REQUESTS };
}

/** Lists OBJECTS ConfigMaps from the store in pages of 500; returns the ms of the listing only. */
function timeStorePaging(): number {
  const s = new Store();
  for (let i = 0; i < OBJECTS; i++) {
    s.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace: 'bench' } });
  }
  const started = performance.now();
  let after: string | undefined;
  let n = 0;
  for (;;) {
    const page = s.list('', 'configmaps', { namespace: 'bench', limit: 500, after });
    n += page.items.length;
    if (!page.lastKey) break;
    after = page.lastKey;
  }
  const ms = performance.now() - started;
  if (n !== OBJECTS) throw new Error(`listed ${n} objects, expected ${OBJECTS}`);
  return ms;
}

function catalogCase(name: string, description: string, maxMs: number, pick: (t: CatalogTimes) => number): BenchCase {
  return {
    name,
    description,
    issue: 'issue 3',
    server: null,
    target: { kind: 'absolute', maxMs },
    baseline: { kind: 'none' },
    custom: async () => pick(timeCatalog()),
  };
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 85;

export const cases: BenchCase[] = [
  catalogCase('server-catalog-register-1000', `local server catalog: register ${GROUPS} CRD groups (in-process)`, 1000, (t) => t.registerMs),
  catalogCase('server-catalog-apis-first-1000', `local server catalog: first aggregated /apis after ${GROUPS} CRD groups (in-process)`, 500, (t) => t.firstApisMs),
  catalogCase('server-catalog-apis-cached-1000', `local server catalog: cached aggregated /apis with ${GROUPS} CRD groups (in-process)`, 5, (t) => t.cachedApisMs),
  {
    name: 'server-store-page-20k',
    description: `local server store: list ${OBJECTS} ConfigMaps in pages of 500 (in-process)`,
    issue: 'issue 3',
    server: null,
    target: { kind: 'absolute', maxMs: 200 },
    baseline: { kind: 'none' },
    custom: async () => timeStorePaging(),
  },
];
