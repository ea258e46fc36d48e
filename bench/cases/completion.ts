/**
 * Issue 14: one TAB press. kdyn's completion scripts run `kdyn __complete ...` for resource types
 * (discovery cache only, no request) and object names (one list request); kubectl's scripts run
 * `kubectl __complete ...` (cobra) for the same. Both caches are filled first.
 */
import type { BenchCase } from '../types.js';
import { fillCaches } from './api-resources.js';

export const order = 40;

export const cases: BenchCase[] = [
  {
    name: 'complete-types',
    description: 'TAB after `kdyn get `: resource types from the discovery cache vs kubectl __complete get ""',
    issue: 'issue 14',
    server: { seed: 'demo' },
    target: { kind: 'ratio', max: 1.0 },
    kdyn: () => ['__complete', 'types'],
    baseline: { kind: 'kubectl', args: () => ['__complete', 'get', ''] },
    prepare: fillCaches,
  },
  {
    name: 'complete-names',
    description: 'TAB after `kdyn get rockets -n demo `: object names (one list request) vs kubectl __complete',
    issue: 'issue 14',
    server: { seed: 'demo' },
    target: { kind: 'ratio', max: 1.0 },
    kdyn: () => ['__complete', 'names', 'rockets', '-n', 'demo'],
    baseline: { kind: 'kubectl', args: () => ['__complete', 'get', 'rockets', '-n', 'demo', ''] },
    prepare: fillCaches,
  },
];
