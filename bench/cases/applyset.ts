/**
 * Issue 37's `apply --prune` target on a real kube-apiserver (`npm run bench -- --server real`):
 * an ApplySet of 500 ConfigMaps applied again with 450 of them, so 50 are pruned, against
 * `KUBECTL_APPLYSET=true kubectl apply --server-side --prune --applyset=...` (target <= 0.2x). Each
 * tool has its own namespace and set (neither mutates the other's), filled once by the tool itself;
 * before every run, untimed, the 50 pruned ConfigMaps are put back with the set's part-of label (a
 * plain `kdyn apply`, the same for both sets), so each timed run applies 450 and prunes 50.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase, CaseEnv, Tool } from '../types.js';
import { applySetId } from '../../src/applyset/spec.js';

const TOTAL = 500;
const KEPT = 450;
const SET = 'configmap/prune-bench';
const APPLYSET = { KUBECTL_APPLYSET: 'true' };
const ns = (tool: Tool) => `prune-bench-${tool === 'kdyn' ? 'kdyn' : 'kubectl'}`;
const file = (env: CaseEnv, n: number) => join(env.tmp, `configmaps-${n}.yaml`);

function write(env: CaseEnv, n: number, from = 0, path = file(env, n), labels = ''): void {
  const docs: string[] = [];
  for (let i = from; i < n; i++) docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prune-bench-${String(i).padStart(4, '0')}\n${labels}data:\n  index: "${i}"\n`);
  writeFileSync(path, docs.join('---\n'));
}

/** The 50 ConfigMaps a run prunes, labelled as members of `tool`'s set. */
const restoreFile = (env: CaseEnv, tool: Tool) => join(env.tmp, `restore-${tool}.yaml`);

/** The arguments of one tool's apply of `n` objects into its set. */
function args(tool: Tool, env: CaseEnv, n: number): string[] {
  return ['apply', ...(tool === 'baseline' ? ['--server-side'] : []), '-n', ns(tool), '-f', file(env, n), '--prune', `--applyset=${SET}`];
}

async function prepare(env: CaseEnv): Promise<string | undefined> {
  write(env, TOTAL);
  write(env, KEPT);
  for (const tool of ['kdyn', 'baseline'] as const) {
    const r = await env.run('baseline', ['create', 'namespace', ns(tool)]);
    if (r.code !== 0 && !r.stderr.includes('AlreadyExists')) return `kubectl create namespace ${ns(tool)}: ${r.stderr.trim()}`;
    // Each tool makes its own set of 500 once.
    const made = await env.run(tool, args(tool, env, TOTAL), { env: APPLYSET });
    if (made.code !== 0) return `the first apply of the set (${tool}) exited ${made.code}: ${made.stderr.trim().split('\n')[0] ?? ''}`;
    const id = applySetId({ name: SET.split('/')[1]!, namespace: ns(tool), kind: 'ConfigMap', group: '' });
    write(env, TOTAL, KEPT, restoreFile(env, tool), `  labels:\n    applyset.kubernetes.io/part-of: ${id}\n`);
  }
  return undefined;
}

/** Untimed, before each run: the 50 the last run pruned are back in the tool's set (a plain apply). */
async function restore(tool: Tool, env: CaseEnv): Promise<void> {
  const r = await env.run('kdyn', ['apply', '-n', ns(tool), '-f', restoreFile(env, tool)]);
  if (r.code !== 0) throw new Error(`restoring the set (${tool}) exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
}

export const order = 61;

export const cases: BenchCase[] = [
  {
    name: 'real-apply-prune-500',
    description: `apply --prune --applyset of ${KEPT} ConfigMaps to a set of ${TOTAL}: ${TOTAL - KEPT} pruned (kubectl with KUBECTL_APPLYSET=true)`,
    issue: 'issue 37',
    server: { real: 'small', user: 'token' },
    target: { kind: 'ratio', max: 0.2 },
    prepare,
    beforeRun: restore,
    kdyn: (env) => args('kdyn', env, KEPT),
    baseline: { kind: 'kubectl', args: (env) => args('baseline', env, KEPT), env: APPLYSET },
    runs: 5,
    warmup: 1,
  },
];
