/** The local API server's own budget (issue 3): it must not be the bottleneck of any other case. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer, type ServerHandle } from '../server.js';
import { listAll, meanRequestMs, readKubeconfig, watchEvents } from '../http.js';
import type { BenchCase } from '../types.js';

const CONFIGMAPS = 20_000;
const WATCH_EVENTS = 10_000;

/** The requests of a warm `get` (kdyn's and kubectl's), each timed on both servers. */
const SKEW_REQUESTS: Array<[string, Record<string, string>]> = [
  ['/api/v1/namespaces?limit=500', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' }],
  ['/api/v1/namespaces/default', { Accept: 'application/json' }],
  ['/version', { Accept: 'application/json' }],
  ['/apis/apps/v1', { Accept: 'application/json' }],
];
const SKEW_N = 200;

/**
 * Per-request ms with 1,000 extra CRD groups minus with the demo seed (both servers up at once;
 * demo, 1000, demo again per request kind, to cancel load drift).
 */
async function requestSkew(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-skew-'));
  const servers: ServerHandle[] = [];
  try {
    servers.push(await startLocalServer({ seed: 'demo' }, join(dir, 'demo')));
    servers.push(await startLocalServer({ seed: 'empty', extraGroups: 1000 }, join(dir, 'many')));
    const [demo, many] = servers.map((s) => readKubeconfig(s.kubeconfig)) as [ReturnType<typeof readKubeconfig>, ReturnType<typeof readKubeconfig>];
    let diff = 0;
    for (const [path, headers] of SKEW_REQUESTS) {
      const a = await meanRequestMs(demo, path, headers, SKEW_N);
      const b = await meanRequestMs(many, path, headers, SKEW_N);
      const a2 = await meanRequestMs(demo, path, headers, SKEW_N);
      diff += b - (a + a2) / 2;
    }
    return diff / SKEW_REQUESTS.length;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 90;

export const cases: BenchCase[] = [
  {
    name: 'server-list-20k',
    description: `local server: list ${CONFIGMAPS} ConfigMaps in pages of 500 over TLS`,
    issue: 'issue 3',
    server: { seed: 'empty', configmaps: CONFIGMAPS, namespace: 'bench' },
    target: { kind: 'absolute', maxMs: 1000 },
    baseline: { kind: 'none' },
    custom: async (env) => {
      const cfg = readKubeconfig(env.server!.kubeconfig);
      const started = process.hrtime.bigint();
      const { items, pages } = await listAll(cfg, '/api/v1/namespaces/bench/configmaps', 500);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (items !== CONFIGMAPS) throw new Error(`listed ${items} ConfigMaps in ${pages} pages, expected ${CONFIGMAPS}`);
      return ms;
    },
  },
  {
    name: 'server-watch-10k',
    description: `local server: ${WATCH_EVENTS} watch events (ADDED) stream to a client over TLS`,
    issue: 'issue 10',
    server: { seed: 'empty', configmaps: WATCH_EVENTS, namespace: 'bench' },
    target: { kind: 'absolute', maxMs: 1000 },
    baseline: { kind: 'none' },
    custom: async (env) => watchEvents(readKubeconfig(env.server!.kubeconfig), '/api/v1/namespaces/bench/configmaps?watch=1', WATCH_EVENTS),
  },
  {
    name: 'server-request-skew-1000',
    description: 'local server: ms per request with 1,000 extra CRD groups minus with the demo seed (warm get\'s requests, keep-alive TLS)',
    issue: 'issue 10',
    server: null,
    target: { kind: 'absolute', maxMs: 0.3 },
    baseline: { kind: 'none' },
    runs: 5,
    custom: requestSkew,
  },
  {
    name: 'server-start-1000',
    description: 'local server: start with --extra-groups 1000 until "ready <url>"',
    issue: 'issue 3',
    server: null,
    target: { kind: 'absolute', maxMs: 5000 },
    baseline: { kind: 'none' },
    runs: 5,
    custom: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-start-'));
      try {
        const s = await startLocalServer({ seed: 'empty', extraGroups: 1000 }, join(dir, 'kubeconfig'));
        await s.stop();
        return s.startMs;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
