/**
 * One call from a kubeconfig to a ready dynamic client, for library users (the CLI composes the same
 * parts lazily in src/cli/context.ts): kubeconfig -> transport -> cached discovery (shared with
 * kubectl's disk cache) -> RESTMapper -> DynamicClient.
 *
 *   const k = await connect({ env: process.env });
 *   const m = await k.mapper.resourceFor('crontabs');
 *   const list = await k.client.resource(m.gvr, m).namespace(k.namespace).listAll();
 *   k.close();
 */
import { systemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { Output } from '../core/io.js';
import type { RestConfig } from '../kubeconfig/types.js';
import type { Transport } from '../transport/types.js';
import type { CachedDiscovery } from '../discovery/types.js';
import type { RESTMapper } from '../restmapper/types.js';
import { DynamicClient } from './client.js';

export interface ConnectOptions {
  /** Environment for KUBECONFIG, HOME, KUBECACHEDIR and proxies; pass `process.env` (default: empty). */
  env?: Record<string, string | undefined>;
  /** A kubeconfig file (as `--kubeconfig`); default: $KUBECONFIG, then ~/.kube/config, then in-cluster. */
  kubeconfig?: string;
  /** As `--context`, `--namespace`, `--server`, `--token`... : any kubectl config flag by long name. */
  flags?: Record<string, unknown>;
  /** Discovery cache directory (default: $KUBECACHEDIR, else ~/.kube/cache). */
  cacheDir?: string;
  /** How long cached discovery is fresh (default 10 minutes; 0 always revalidates). */
  cacheTtlMs?: number;
  /** Per-request timeout (ms, 0 = none; default 0). */
  timeoutMs?: number;
  /** Where ambiguity warnings and server `Warning:` headers go (default: dropped). */
  onWarning?: (message: string) => void;
  /** Receives exec credential plugins' stderr (default: dropped). */
  stderr?: Output;
  cwd?: string;
  clock?: Clock;
  logger?: Logger;
}

export interface Connection {
  config: RestConfig;
  /** The kubeconfig context's namespace (or `default`). */
  namespace: string;
  transport: Transport;
  discovery: CachedDiscovery;
  mapper: RESTMapper;
  client: DynamicClient;
  /** Releases keep-alive connections so the process can exit. */
  close(): void;
}

export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const env = options.env ?? {};
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const warn = options.onWarning ?? (() => {});
  const flags = { ...(options.flags ?? {}), ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}) };
  const [{ loadRestConfig }, { createTransport }, { createCachedDiscovery }, { DeferredRESTMapper }] = await Promise.all([
    import('../kubeconfig/load.js'),
    import('../transport/http.js'),
    import('../discovery/cached.js'),
    import('../restmapper/deferred.js'),
  ]);
  const config = await loadRestConfig({ flags, env, cwd: options.cwd ?? '.', logger, clock, stderr: options.stderr ?? { write: () => true } });
  const transport = createTransport(config, { logger, clock, env, timeoutMs: options.timeoutMs ?? 0 });
  const discovery = createCachedDiscovery({
    transport,
    server: config.server,
    cacheDir: options.cacheDir,
    ttlMs: options.cacheTtlMs ?? 10 * 60 * 1000,
    env,
    clock,
    logger,
  });
  const mapper = new DeferredRESTMapper(discovery, { warn });
  const client = new DynamicClient(transport, { onWarning: warn });
  return { config, namespace: config.namespace, transport, discovery, mapper, client, close: () => transport.close() };
}
