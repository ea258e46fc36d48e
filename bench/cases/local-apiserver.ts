/** The local API server's own budget (issue 3): it must not be the bottleneck of any other case. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from '../server.js';
import { listAll, readKubeconfig } from '../http.js';
import type { BenchCase } from '../types.js';

const CONFIGMAPS = 20_000;

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
