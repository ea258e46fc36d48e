/**
 * Issue 37's `kdyn diff` target on a real kube-apiserver v1.32 (`--server real`): 200 ConfigMaps live
 * in a namespace of their own (applied once, untimed, with kdyn's field manager), and a file of the
 * same 200 with 10 of them changed: `kdyn diff -f` against `kubectl diff --server-side
 * --field-manager=kdyn -f` (the same output; both exit 1, differences found), every object sent as
 * kubectl sends it (the default): target <= 0.3x. The second case opts in to `--skip-unchanged`.
 * Figures (bench/results/2026-11-27-diff.md): the default 0.22-0.31x at a load average up to ~10,
 * 0.23-0.45x at 10-14 on a shared 2-core machine (before the dry runs went out beside the live reads
 * and the YAML fast path: 0.33-0.45x); `--skip-unchanged` 0.11x.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase, CaseEnv } from '../types.js';

const OBJECTS = 200;
const CHANGED = 10;
const NAMESPACE = 'diff-bench';

function manifests(changed: number): string {
  const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${NAMESPACE}\n`];
  for (let i = 0; i < OBJECTS; i++) {
    // Every 20th object changes: the changes are spread over the file and the namespace's list.
    const version = i % (OBJECTS / CHANGED) === 0 && changed > 0 ? 'v2' : 'v1';
    docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diff-bench-${String(i).padStart(3, '0')}\n  namespace: ${NAMESPACE}\n  labels:\n    app: diff-bench\ndata:\n  index: "${i}"\n  release: ${version}\n  settings.yaml: |\n    replicas: 3\n    mode: bench\n`);
  }
  return docs.join('---\n');
}

const changedFile = (env: CaseEnv) => join(env.tmp, 'changed.yaml');

async function prepare(env: CaseEnv): Promise<string | undefined> {
  const live = join(env.tmp, 'live.yaml');
  writeFileSync(live, manifests(0));
  writeFileSync(changedFile(env), manifests(CHANGED));
  const applied = await env.run('kdyn', ['apply', '-f', live]);
  return applied.code === 0 ? undefined : `kdyn apply of the live objects exited ${applied.code}: ${applied.stderr.trim().split('\n')[0] ?? ''}`;
}

export const order = 61;

export const cases: BenchCase[] = [
  {
    name: 'real-diff-200-10-changed',
    description: `diff -f of ${OBJECTS} ConfigMaps, ${CHANGED} of them changed (exit 1 both), against kubectl diff --server-side`,
    issue: 'issue 37',
    server: { real: 'small', user: 'token' },
    target: { kind: 'ratio', max: 0.3 },
    exitCodes: [1],
    prepare,
    kdyn: (env) => ['diff', '-f', changedFile(env)],
    baseline: { kind: 'kubectl', args: (env) => ['diff', '--server-side', '--field-manager=kdyn', '-f', changedFile(env)] },
  },
  {
    // The same with --skip-unchanged (opt in): what the managedFields check saves.
    name: 'real-diff-200-10-changed-skip-unchanged',
    description: `the same, --skip-unchanged: only the objects managedFields cannot prove unchanged are sent`,
    issue: 'issue 37',
    server: { real: 'small', user: 'token' },
    target: { kind: 'ratio', max: 0.3 },
    exitCodes: [1],
    prepare,
    kdyn: (env) => ['diff', '-f', changedFile(env), '--skip-unchanged'],
    baseline: { kind: 'kubectl', args: (env) => ['diff', '--server-side', '--field-manager=kdyn', '-f', changedFile(env)] },
  },
];
