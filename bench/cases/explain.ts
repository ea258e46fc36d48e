/**
 * Issue 37: `kdyn explain` warm (discovery cached, the group-version's OpenAPI v3 document cached by
 * its hash: each run makes one request, the /openapi/v3 index, as kubectl's does) against
 * `kubectl explain`; target 0.8x kubectl's. On a real kube-apiserver (`--server real`) the core
 * document is the real one (1.4 MB), and with the "crds" cluster a CRD's; on the local server a CRD's.
 */
import { crdGroupName } from '../real-server.js';
import type { BenchCase } from '../types.js';

export const order = 60;

function explainCase(name: string, description: string, server: BenchCase['server'], args: string[]): BenchCase {
  return {
    name,
    description,
    issue: 'issue 37',
    server,
    target: { kind: 'ratio', max: 0.8 },
    kdyn: () => ['explain', ...args],
    baseline: { kind: 'kubectl', args: () => ['explain', ...args] },
  };
}

export const cases: BenchCase[] = [
  explainCase('explain-crd-warm', 'explain rockets.spec (a CRD), warm caches', { seed: 'demo' }, ['rockets.spec']),
  explainCase('real-explain-pods-warm', 'explain pods, warm caches (the 1.4 MB core document from the cache)', { real: 'small', user: 'token' }, ['pods']),
  explainCase('real-explain-field-path-warm', 'explain pods.spec.containers, warm caches (a field path of the core document)', { real: 'small', user: 'token' }, ['pods.spec.containers']),
  explainCase('real-explain-deployments-recursive-warm', 'explain deployments.apps --recursive, warm caches', { real: 'small', user: 'token' }, ['deployments.apps', '--recursive']),
  explainCase('real-explain-crd-warm', 'explain a CRD (widgets of the first bench group), warm caches', { real: 'crds', user: 'token' }, [`widgets.${crdGroupName(1)}`]),
];
