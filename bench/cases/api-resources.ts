/**
 * Issue 4: `kdyn api-resources` against `kubectl api-resources` on the same local API server.
 * With 300 and 1,000 extra CRD groups, in both discovery modes.
 * Each tool has its own HOME (so its own ~/.kube/cache). "cold" wipes that tool's cache before every
 * run (untimed); "warm" keeps what the warm-up runs wrote (both revalidate: kubectl refetches, as it
 * always invalidates; kdyn sends its cached ETags and gets 304s). After each kdyn run the harness waits,
 * untimed, for kdyn's background kubectl-layout writer (bench/write-behind.ts), so that writer never
 * competes with a timed run or races the next wipe.
 */
import { rmSync } from 'node:fs';
import type { BenchCase, CaseEnv, ServerOptions, Tool } from '../types.js';

/** beforeRun of a cold case: the tool's cache removed (untimed). */
export const wipeCache = (tool: Tool, env: CaseEnv) => rmSync(env.cacheDir[tool], { recursive: true, force: true });

function apiResources(name: string, description: string, server: ServerOptions, max: number, cold: boolean, extra: string[] = []): BenchCase {
  return {
    name,
    description,
    issue: 'issue 4',
    server,
    target: { kind: 'ratio', max },
    kdyn: () => ['api-resources', ...extra],
    baseline: { kind: 'kubectl', args: () => ['api-resources', ...extra] },
    beforeRun: cold ? wipeCache : undefined,
  };
}

/**
 * Fills both tools' caches once (for the --cached case: its warm-up runs make no requests). Through
 * env.run, so the harness also waits for kdyn's background layout writer before the first timed run.
 */
export async function fillCaches(env: CaseEnv): Promise<string | undefined> {
  if (!env.server) return 'no server';
  for (const tool of ['kdyn', 'baseline'] as const) {
    if (tool === 'baseline' && !env.kubectl) continue;
    const out = await env.run(tool, ['api-resources']);
    if (out.code !== 0) return `filling the caches failed: ${tool} exited ${out.code}: ${out.stderr.trim().split('\n')[0] ?? ''}`;
  }
  return undefined;
}

export const order = 21;

export const cases: BenchCase[] = [
  apiResources('api-resources-warm', 'api-resources, warm cache (both revalidate; kdyn\'s two requests answered 304)', { seed: 'demo' }, 1.0, false),
  apiResources('api-resources-cold-300', 'api-resources, cold cache, 300 extra CRD groups, aggregated discovery', { seed: 'empty', extraGroups: 300 }, 1.0, true),
  apiResources('api-resources-cold-300-legacy', 'api-resources, cold cache, 300 extra CRD groups, legacy discovery', { seed: 'empty', extraGroups: 300, discovery: 'legacy' }, 0.8, true),
  apiResources('api-resources-cold-1000', 'api-resources, cold cache, 1000 extra CRD groups, aggregated discovery', { seed: 'empty', extraGroups: 1000 }, 0.5, true),
  apiResources('api-resources-cold-1000-legacy', 'api-resources, cold cache, 1000 extra CRD groups, legacy discovery', { seed: 'empty', extraGroups: 1000, discovery: 'legacy' }, 0.8, true),
  apiResources('api-resources-warm-1000', 'api-resources, warm cache, 1000 extra CRD groups (kdyn: one combined file and two 304s)', { seed: 'empty', extraGroups: 1000 }, 1.0, false),
  { ...apiResources('api-resources-cached-1000', 'api-resources --cached, 1000 extra CRD groups (both answer from disk, zero requests)', { seed: 'empty', extraGroups: 1000 }, 1.0, false, ['--cached']), prepare: fillCaches },
];
