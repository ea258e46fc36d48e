/**
 * Issue 37's `kdyn delete` target on a real kube-apiserver (`npm run bench -- --server real --case
 * real-delete-500`): `delete -f` of one file with 500 ConfigMaps, waiting until they are gone (the
 * default `--wait`), against `kubectl delete -f` (which deletes one after the other, then GETs each
 * object to wait for it). Before every run of either tool the objects are made again, untimed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase, CaseEnv, Tool } from '../types.js';

const OBJECTS = 500;
const NAMESPACE = 'delete-bench';

const file = (env: CaseEnv) => join(env.tmp, 'delete-500.yaml');

function prepare(env: CaseEnv): undefined {
  const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${NAMESPACE}\n`];
  for (let i = 0; i < OBJECTS; i++) {
    docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: delete-bench-${String(i).padStart(4, '0')}\n  namespace: ${NAMESPACE}\ndata:\n  index: "${i}"\n`);
  }
  writeFileSync(join(env.tmp, 'namespace.yaml'), docs[0]!);
  writeFileSync(file(env), docs.slice(1).join('---\n'));
  return undefined;
}

/** Untimed, before each run: the namespace and the 500 objects exist again (kdyn's apply, the faster). */
async function recreate(_tool: Tool, env: CaseEnv): Promise<void> {
  for (const f of [join(env.tmp, 'namespace.yaml'), file(env)]) {
    const r = await env.run('kdyn', ['apply', '-f', f, '--concurrency', '32']);
    if (r.code !== 0) throw new Error(`kdyn apply -f ${f} (re-creating the objects) exited ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
  }
}

export const order = 62;

export const cases: BenchCase[] = [
  {
    name: 'real-delete-500',
    description: `delete -f of ${OBJECTS} ConfigMaps with --wait (the default), real kube-apiserver; the objects are re-created untimed before each run`,
    issue: 'issue 37',
    server: { real: 'small', user: 'token' },
    target: { kind: 'ratio', max: 0.3 },
    prepare,
    beforeRun: recreate,
    runs: 7,
    warmup: 1,
    kdyn: (env) => ['delete', '-f', file(env), '--wait'],
    baseline: { kind: 'kubectl', args: (env) => ['delete', '-f', file(env), '--wait'] },
  },
];
