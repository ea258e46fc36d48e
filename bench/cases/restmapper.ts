/**
 * The RESTMapper for a server with 1,000 CRD groups: indexes built once, no scan per
 * lookup. In-process, no server. These were thresholds in test/unit/restmapper/perf.test.ts (now
 * many-groups.test.ts, which keeps the behaviour).
 */
import { performance } from 'node:perf_hooks';
import { DiscoveryRESTMapper } from '../../src/restmapper/mapper.js';
import type { DiscoverySnapshot } from '../../src/discovery/types.js';
import { bigSnapshot } from '../../test/unit/restmapper/snapshot.js';
import type { BenchCase } from '../types.js';

const GROUPS = 1000;
const LOOKUPS = ['pods', 'po', 'things999', 't500', 'Thing10.v1beta1.g10.bench.example.com', 'wd', 'deployments.apps'];
const ROUNDS = 1000;

let snap: DiscoverySnapshot | undefined;
const snapshot1000 = (): DiscoverySnapshot => (snap ??= bigSnapshot(GROUPS));

function buildMs(): number {
  const s = snapshot1000();
  const started = performance.now();
  new DiscoveryRESTMapper(s);
  return performance.now() - started;
}

/** Mean ms per resolve over ROUNDS rounds of LOOKUPS. */
function resolveMs(): number {
  const mapper = new DiscoveryRESTMapper(snapshot1000());
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) for (const name of LOOKUPS) mapper.resolve(name);
  return (performance.now() - started) / (ROUNDS * LOOKUPS.length);
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 80;

export const cases: BenchCase[] = [
  {
    name: 'restmapper-build-1000',
    description: `RESTMapper: build from a snapshot with ${GROUPS} extra CRD groups (in-process)`,
    server: null,
    target: { kind: 'absolute', maxMs: 40 },
    baseline: { kind: 'none' },
    custom: async () => buildMs(),
  },
  {
    name: 'restmapper-resolve-1000',
    description: `RESTMapper: ms per resolve with ${GROUPS} extra CRD groups (target 500 µs; in-process)`,
    server: null,
    target: { kind: 'absolute', maxMs: 0.5 },
    baseline: { kind: 'none' },
    custom: async () => resolveMs(),
  },
];
