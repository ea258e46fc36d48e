/**
 * Issue 4's targets for `kdyn api-resources` (stand-ins: a case of the same name in another file,
 * e.g. bench/cases/api-resources.ts, replaces each of these). Each tool has its own HOME, so its own
 * ~/.kube/cache; "cold" wipes that tool's cache before every run (untimed), "warm" keeps what the
 * warm-up runs wrote.
 */
import { rmSync } from 'node:fs';
import type { BenchCase, CaseEnv, ServerOptions, Tool } from '../types.js';

const wipeCache = (tool: Tool, env: CaseEnv) => rmSync(env.cacheDir[tool], { recursive: true, force: true });

function apiResources(name: string, description: string, server: ServerOptions, max: number, cold: boolean): BenchCase {
  return {
    name,
    description,
    issue: 'issue 4',
    server,
    target: { kind: 'ratio', max },
    kdyn: () => ['api-resources'],
    baseline: { kind: 'kubectl', args: () => ['api-resources'] },
    beforeRun: cold ? wipeCache : undefined,
    stub: true,
  };
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 20;

export const cases: BenchCase[] = [
  apiResources('api-resources-warm', 'api-resources, warm cache (kubectl refetches; kdyn answers from its cache)', { seed: 'demo' }, 1.0, false),
  apiResources('api-resources-cold-300', 'api-resources, cold cache, 300 extra CRD groups, aggregated discovery', { seed: 'empty', extraGroups: 300 }, 1.0, true),
  apiResources('api-resources-cold-300-legacy', 'api-resources, cold cache, 300 extra CRD groups, legacy discovery', { seed: 'empty', extraGroups: 300, discovery: 'legacy' }, 0.8, true),
  apiResources('api-resources-cold-1000', 'api-resources, cold cache, 1000 extra CRD groups, aggregated discovery', { seed: 'empty', extraGroups: 1000 }, 0.5, true),
];
