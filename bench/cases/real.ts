/**
 * Issue 21's targets on a real kube-apiserver v1.32 (`npm run bench -- --server real`; see
 * bench/real-server.ts): warm `get` on a small cluster with a token and with a client certificate,
 * warm `get` with 1,000 CRD groups (also right after kubectl refreshed the discovery cache the two
 * tools share), and `api-resources` warm and cold on both clusters (issue 34: kdyn's revalidates too). Ratios are kdyn / kubectl, medians of alternating runs.
 * The watch-after-outage cases are in real-outage.ts.
 */
import { fileURLToPath } from 'node:url';
import type { BenchCase, CaseEnv, RealServerOptions, Tool } from '../types.js';
import { wipeCache } from './api-resources.js';

/** The least a Node client does for the same list (bench/fleet-floor-client.ts), given the case's KUBECONFIG. */
const MINIMAL_CLIENT = fileURLToPath(new URL('../fleet-floor-client.js', import.meta.url));

const SMALL_TOKEN: RealServerOptions = { real: 'small', user: 'token' };
const SMALL_CERT: RealServerOptions = { real: 'small', user: 'clientCert' };
const CRDS_TOKEN: RealServerOptions = { real: 'crds', user: 'token' };

function real(name: string, description: string, server: RealServerOptions, max: number, args: string[]): BenchCase {
  return {
    name,
    description,
    issue: 'issue 21',
    server,
    target: { kind: 'ratio', max },
    kdyn: () => args,
    baseline: { kind: 'kubectl', args: () => args },
  };
}

/**
 * Before each kdyn run, untimed: `kubectl api-resources` on kdyn's own cache dir (HOME), which
 * rewrites kubectl's discovery layout there. With the previous kdyn run this makes the sequence of
 * issue 21: kdyn get; kubectl api-resources; kdyn get (timed).
 */
async function kubectlRefreshesKdynCache(tool: Tool, env: CaseEnv): Promise<void> {
  if (tool !== 'kdyn') return;
  const out = await env.run('baseline', ['api-resources'], { homeOf: 'kdyn' });
  if (out.code !== 0) throw new Error(`kubectl api-resources (refreshing kdyn's cache) exited ${out.code}: ${out.stderr.trim().split('\n')[0] ?? ''}`);
}

export const order = 60;

export const cases: BenchCase[] = [
  // Issue 36 restated issue 21's targets from what Node itself can do: <= 1.0x with a token, <= 1.05x with
  // a client certificate, and <= 1.15x the minimal client in the same run (the next case; its 10-cluster
  // counterpart is node build/bench/fleet-floor.js).
  { ...real('real-get-small-token', 'get namespaces, warm cache, token kubeconfig', SMALL_TOKEN, 1.0, ['get', 'namespaces']), issue: 'issue 36' },
  {
    ...real('real-get-small-token-vs-minimal', 'get namespaces, warm cache, token kubeconfig, against the minimal Node client (kubeconfig read, one verified TLS GET, one line per row)', SMALL_TOKEN, 1.15, ['get', 'namespaces']),
    issue: 'issue 36',
    baseline: { kind: 'node', args: [MINIMAL_CLIENT, 'env', '1'] },
  },
  { ...real('real-get-small-client-cert', 'get namespaces, warm cache, client-certificate kubeconfig', SMALL_CERT, 1.05, ['get', 'namespaces']), issue: 'issue 36' },
  real('real-api-resources-warm', 'api-resources, warm cache (both revalidate: kubectl refetches, kdyn sends /api and /apis with If-None-Match)', SMALL_TOKEN, 1.0, ['api-resources']),
  { ...real('real-api-resources-cold', 'api-resources, cold cache (each run wipes the tool\'s cache, untimed)', SMALL_TOKEN, 1.0, ['api-resources']), beforeRun: wipeCache },
  real('real-get-crds-warm', 'get namespaces, warm cache, the CRD-group cluster', CRDS_TOKEN, 0.5, ['get', 'namespaces']),
  {
    ...real('real-get-crds-after-kubectl', 'get namespaces, CRD-group cluster, right after kubectl api-resources refreshed the shared cache (untimed)', CRDS_TOKEN, 0.5, ['get', 'namespaces']),
    beforeRun: kubectlRefreshesKdynCache,
  },
  // Issue 34: kdyn's api-resources revalidates as kubectl's does; with 1,000 CRD groups it must stay <= 0.5x.
  real('real-api-resources-warm-crds', 'api-resources, warm cache, the CRD-group cluster (both revalidate)', CRDS_TOKEN, 0.5, ['api-resources']),
  { ...real('real-api-resources-cold-crds', 'api-resources, cold cache, the CRD-group cluster', CRDS_TOKEN, 0.5, ['api-resources']), beforeRun: wipeCache },
];
