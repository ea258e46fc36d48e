/**
 * Issue 26: `kdyn types` for one CRD against a warm `kdyn get` of the same resource (both with warm
 * caches: the warm-up runs fill discovery and the OpenAPI document; types then makes one request, the
 * /openapi/v3 index, as get makes its one list request).
 */
import type { BenchCase } from '../types.js';
import { KDYN_BIN } from '../tools.js';

export const order = 60;

export const cases: BenchCase[] = [
  {
    name: 'types-crd-warm',
    description: 'types rockets (one CRD, cached OpenAPI document) vs a warm kdyn get rockets -A',
    issue: 'issue 26',
    server: { seed: 'demo' },
    target: { kind: 'ratio', max: 1.2 },
    kdyn: () => ['types', 'rockets'],
    baseline: { kind: 'node', args: [KDYN_BIN, 'get', 'rockets', '-A'] },
  },
];
