/**
 * Issue 12's `kdyn apply` targets: server-side apply of many objects from one file, and a file that
 * holds CRDs together with their instances (kdyn applies it in one call; kubectl needs two: its first
 * fails on the instances with "ensure CRDs are installed first").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase, CaseEnv } from '../types.js';

const CONFIGMAPS = 500;
const CRDS = 20;
const PER_CRD = 10;
const GROUP = 'bench.apply.kdyn.dev';

function configMapsFile(env: CaseEnv): string {
  return join(env.tmp, 'configmaps.yaml');
}

function crdsFile(env: CaseEnv): string {
  return join(env.tmp, 'crds.yaml');
}

function writeConfigMaps(env: CaseEnv): undefined {
  const docs: string[] = [];
  for (let i = 0; i < CONFIGMAPS; i++) {
    docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apply-bench-${String(i).padStart(4, '0')}\n  labels:\n    app: apply-bench\ndata:\n  index: "${i}"\n  settings.yaml: |\n    replicas: 3\n    mode: bench\n`);
  }
  writeFileSync(configMapsFile(env), docs.join('---\n'));
  return undefined;
}

function writeCrds(env: CaseEnv): undefined {
  const docs: string[] = [];
  for (let c = 0; c < CRDS; c++) {
    const kind = `Widget${c}`;
    const plural = `widget${c}s`;
    docs.push(
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.${GROUP}\n  labels:\n    kdyn-bench: apply\nspec:\n  group: ${GROUP}\n  scope: Namespaced\n` +
        `  names:\n    kind: ${kind}\n    plural: ${plural}\n    singular: widget${c}\n    listKind: ${kind}List\n  versions:\n  - name: v1\n    served: true\n    storage: true\n` +
        `    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size:\n                type: integer\n              color:\n                type: string\n`,
    );
  }
  // Instances after all the CRDs, as such files usually come (a kustomize build, a Helm template).
  for (let c = 0; c < CRDS; c++) {
    for (let i = 0; i < PER_CRD; i++) {
      docs.push(`apiVersion: ${GROUP}/v1\nkind: Widget${c}\nmetadata:\n  name: w${i}\n  namespace: default\nspec:\n  size: ${i}\n  color: blue\n`);
    }
  }
  writeFileSync(crdsFile(env), docs.join('---\n'));
  return undefined;
}

/** Every run starts without the CRDs (deleting a CRD deletes its instances): untimed, through kubectl. */
async function deleteCrds(_tool: unknown, env: CaseEnv): Promise<void> {
  await env.run('baseline', ['delete', 'crd', '-l', 'kdyn-bench=apply', '--wait=false', '--ignore-not-found']);
}

export const order = 40;

export const cases: BenchCase[] = [
  {
    name: 'apply-one-warm',
    description: 'apply --server-side of one ConfigMap (unchanged after the first run), warm cache: start-up and one round trip',
    issue: 'issue 12',
    server: { seed: 'empty' },
    target: { kind: 'ratio', max: 1.0 },
    prepare: (env) => {
      writeFileSync(join(env.tmp, 'one.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apply-one\ndata:\n  key: value\n');
      return undefined;
    },
    kdyn: (env) => ['apply', '-f', join(env.tmp, 'one.yaml'), '-n', 'default'],
    baseline: { kind: 'kubectl', args: (env) => ['apply', '--server-side', '-f', join(env.tmp, 'one.yaml'), '-n', 'default'] },
  },
  {
    name: 'apply-500-configmaps',
    description: `apply --server-side of one file with ${CONFIGMAPS} ConfigMaps (after the first run: unchanged)`,
    issue: 'issue 12',
    server: { seed: 'empty' },
    target: { kind: 'ratio', max: 0.3 },
    prepare: writeConfigMaps,
    kdyn: (env) => ['apply', '-f', configMapsFile(env), '-n', 'default'],
    baseline: { kind: 'kubectl', args: (env) => ['apply', '--server-side', '-f', configMapsFile(env), '-n', 'default'] },
  },
  {
    name: 'apply-crds-200',
    description: `${CRDS} CRDs and ${CRDS * PER_CRD} of their instances in one file: kdyn in one call, kubectl in two (its first fails on the instances)`,
    issue: 'issue 12',
    server: { seed: 'empty' },
    target: { kind: 'ratio', max: 1.0 },
    prepare: writeCrds,
    beforeRun: deleteCrds,
    kdyn: (env) => ['apply', '-f', crdsFile(env)],
    baseline: { kind: 'kubectl', args: (env) => ['apply', '--server-side', '-f', crdsFile(env)], calls: 2 },
  },
];
