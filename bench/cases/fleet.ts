/**
 * Issue 24's fleet targets, on 10 local API servers (bench/fleet-servers.ts, their own process, one
 * kubeconfig with contexts c0..c9), caches warm (the warm-up runs fill them):
 * - `get` over the 10 clusters (`--all-contexts`) within 1.5x kdyn's `get` of one of them;
 * - the same within 0.2x of kubectl in a shell loop over the 10 contexts;
 * - peak memory of the 10-cluster `get` against the 1-cluster one: flat (<= 1.25x; the objects
 *   printed are a few dozen lines, so what grows is the per-cluster cost).
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchCase } from '../types.js';
import { KDYN_BIN } from '../tools.js';
import { spawnFleetServers } from '../fleet-spawn.js';

const CLUSTERS = 10;
const DIR = join(tmpdir(), `kdyn-bench-fleet-${process.pid}`);
const KUBECONFIG = join(DIR, 'kubeconfig');
const CONTEXTS = Array.from({ length: CLUSTERS }, (_, i) => `c${i}`);
const GET = ['get', 'namespaces', '--kubeconfig', KUBECONFIG];

let servers: Promise<ChildProcess> | undefined;
let child: ChildProcess | undefined;
process.on('exit', () => {
  child?.kill('SIGKILL'); // synchronously: an exit handler cannot wait
  rmSync(DIR, { recursive: true, force: true });
});

/** The 10 servers, started once for every case. */
async function prepare(): Promise<string | undefined> {
  servers ??= spawnFleetServers(DIR, CLUSTERS, (c) => (child = c));
  try {
    await servers;
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export const order = 45;

export const cases: BenchCase[] = [
  {
    name: 'fleet-get-10-vs-1',
    description: `get namespaces over ${CLUSTERS} clusters (--all-contexts) vs kdyn get of one cluster, warm caches`,
    issue: 'issue 24',
    server: null,
    metric: 'wall',
    target: { kind: 'ratio', max: 1.5 },
    prepare,
    kdyn: () => [...GET, '--all-contexts'],
    baseline: { kind: 'node', args: [KDYN_BIN, ...GET, '--context', 'c0'] },
  },
  {
    name: 'fleet-get-10-vs-kubectl-loop',
    description: `get namespaces over ${CLUSTERS} clusters vs kubectl in a shell loop over the ${CLUSTERS} contexts, warm caches`,
    issue: 'issue 24',
    server: null,
    metric: 'wall',
    target: { kind: 'ratio', max: 0.2 },
    prepare,
    kdyn: () => [...GET, '--all-contexts'],
    baseline: { kind: 'kubectl', args: () => GET, loop: () => CONTEXTS.map((c) => [...GET, '--context', c]) },
    runs: 7,
  },
  {
    name: 'fleet-get-10-rss',
    description: `peak RSS: get namespaces over ${CLUSTERS} clusters vs kdyn get of one cluster`,
    issue: 'issue 24',
    server: null,
    metric: 'rss',
    target: { kind: 'ratio', max: 1.25 },
    prepare,
    kdyn: () => [...GET, '--all-contexts'],
    baseline: { kind: 'node', args: [KDYN_BIN, ...GET, '--context', 'c0'] },
    runs: 5,
  },
];
