/**
 * The real kube-apiserver v1.32 for `npm run bench -- --server real`, through the test harness
 * (test/support/real-apiserver.ts): one etcd for the whole run, and on it two clusters under
 * different `--etcd-prefix`es: "small" (what a fresh cluster serves) and "crds" (the same plus N
 * CRDs, each in a group of its own, default 1,000). The CRDs are created with parallel requests,
 * then the harness waits until discovery lists every one of their groups (and the last one serves
 * its resource).
 */
import { realAssets, startEtcd, startRealApiServer, type Etcd, type RealCluster } from '../test/support/real-apiserver.js';
import type { RealServerOptions } from './types.js';

/** One clear line for a real-mode run without the assets (printed by main). */
export const NO_ASSETS =
  '--server real needs KUBEBUILDER_ASSETS: a directory with kube-apiserver and etcd (../shared/tools/kube-apiserver/setup-assets.sh DIR prepares one)';

/** The suffix of the CRD groups the bench creates: `g0001.bench.kdyn.example`, ... */
const GROUP_SUFFIX = 'bench.kdyn.example';
/** Parallel CRD creations (the API server runs its CRD controllers behind them; more does not help on 2 cores). */
const CREATE_CONCURRENCY = 16;
const DISCOVERY_TIMEOUT_MS = 15 * 60_000;

export function crdGroupName(i: number): string {
  return `g${String(i).padStart(4, '0')}.${GROUP_SUFFIX}`;
}

/** A namespaced CRD `widgets.<group>`, served at v1, any content. */
export function crdManifest(group: string): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

/** How many of the bench's CRD groups a group list (`GET /apis`, an APIGroupList) names. */
export function countBenchGroups(doc: { groups?: Array<{ name?: string }> }): number {
  return (doc.groups ?? []).filter((g) => g.name?.endsWith(`.${GROUP_SUFFIX}`)).length;
}

/** A real cluster as the bench pool holds it. */
export interface RealServer {
  cluster: RealCluster;
  /** The API server's `gitVersion` (from /version). */
  version: string;
  /** One line on how it was set up (for the log and the JSON). */
  setup: RealSetup;
}

export interface RealSetup {
  name: string;
  url: string;
  version: string;
  /** kube-apiserver start to /readyz ok. */
  startMs: number;
  crdGroups?: number;
  /** Creating the CRDs (all requests answered). */
  createMs?: number;
  /** From the first create until discovery listed every group. */
  discoveryMs?: number;
}

/** A short label for the table and JSON: which server a figure comes from. */
export function realServerLabel(opts: RealServerOptions, crdGroups: number): string {
  return opts.real === 'small' ? 'real, small' : `real, ${crdGroups} CRD groups`;
}

/** One etcd, started on first use; both clusters live on it under their own prefixes. */
export class RealClusters {
  private etcd: Promise<Etcd> | undefined;

  constructor(
    private readonly crdGroups: number,
    private readonly log: (line: string) => void,
  ) {}

  async start(kind: RealServerOptions['real']): Promise<RealServer> {
    const assets = realAssets();
    if (!assets) throw new Error(NO_ASSETS);
    this.etcd ??= startEtcd({ assets });
    const etcd = await this.etcd;
    const started = performance.now();
    const cluster = await startRealApiServer({ assets, etcd, etcdPrefix: `/kdyn-bench-${kind}` });
    const startMs = performance.now() - started;
    try {
      const version = await serverVersion(cluster);
      const setup: RealSetup = { name: kind, url: cluster.url, version, startMs };
      this.log(`bench: real cluster "${kind}": kube-apiserver ${version} at ${cluster.url}, ready after ${seconds(startMs)}`);
      if (kind === 'crds') Object.assign(setup, await this.addCrds(cluster));
      return { cluster, version, setup };
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }

  /** Creates the CRDs that are missing (a restarted cluster keeps them in etcd) and waits for discovery. */
  private async addCrds(cluster: RealCluster): Promise<Pick<RealSetup, 'crdGroups' | 'createMs' | 'discoveryMs'>> {
    const n = this.crdGroups;
    const started = performance.now();
    const groups = Array.from({ length: n }, (_, i) => crdGroupName(i + 1));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < groups.length) {
        const group = groups[next++]!;
        const res = await cluster.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crdManifest(group));
        if (res.status !== 201 && res.status !== 409) throw new Error(`creating the CRD for ${group}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
    const createMs = performance.now() - started;
    this.log(`bench: real cluster "crds": ${n} CRDs created in ${seconds(createMs)} (${CREATE_CONCURRENCY} parallel requests); waiting for discovery`);
    let served = 0;
    for (;;) {
      const res = await cluster.request('GET', '/apis').catch(() => undefined);
      if (res?.status === 200) served = countBenchGroups(JSON.parse(res.body));
      if (served >= n && (await servesWidgets(cluster, groups[n - 1]!))) break;
      if (performance.now() - started > DISCOVERY_TIMEOUT_MS) throw new Error(`discovery lists ${served} of ${n} CRD groups after ${seconds(DISCOVERY_TIMEOUT_MS)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const discoveryMs = performance.now() - started;
    this.log(`bench: real cluster "crds": discovery serves all ${n} CRD groups ${seconds(discoveryMs)} after the first create`);
    return { crdGroups: n, createMs, discoveryMs };
  }

  async stop(): Promise<void> {
    const etcd = this.etcd;
    this.etcd = undefined;
    if (etcd) await etcd.then((e) => e.stop(), () => undefined);
  }
}

async function servesWidgets(cluster: RealCluster, group: string): Promise<boolean> {
  const res = await cluster.request('GET', `/apis/${group}/v1`).catch(() => undefined);
  return res?.status === 200 && res.body.includes('"widgets"');
}

async function serverVersion(cluster: RealCluster): Promise<string> {
  const res = await cluster.request('GET', '/version');
  return (JSON.parse(res.body) as { gitVersion?: string }).gitVersion ?? 'unknown';
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
