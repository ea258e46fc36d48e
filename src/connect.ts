/**
 * The composition root, the one place that wires kubeconfig -> transport -> cached discovery (shared
 * with kubectl's disk cache) -> RESTMapper -> DynamicClient, for the CLI and the library alike.
 *
 * `compose()` builds each layer on first use and imports its code only then, so `kdyn version
 * --client` never loads the transport, and a warm discovery cache answers without node:https/tls.
 * The CLI's context (src/cli/context.ts) is compose() plus the command line's flags and IO.
 * `connect()`, for library users, builds every layer at once:
 *
 *   const k = await connect(); // $KUBECONFIG, ~/.kube/config or in-cluster, as kubectl
 *   const m = await k.mapper.resourceFor('crontabs');
 *   const list = await k.client.resource(m.gvr, m).namespace(k.namespace).listAll();
 *   k.close();
 *
 * or, with handles (src/handles.ts) typed by `kdyn types`' output:
 *
 *   const crontabs = await k.resource<CronTab>('crontabs'); // in k.namespace
 *   const h = await k.for(obj); await h.apply(obj);          // obj's apiVersion, kind and namespace
 */
import { systemClock, type Clock } from './core/clock.js';
import { silentLogger, type Logger } from './core/log.js';
import type { Output } from './core/io.js';
import type { ConfigFlags, MergedKubeconfig, RestConfig } from './kubeconfig/types.js';
import type { Transport } from './transport/types.js';
import type { CachedDiscovery } from './discovery/types.js';
import type { WriteBehind } from './discovery/write-behind.js';
import type { RESTMapper } from './restmapper/types.js';
import type { DynamicClient } from './dynamic/client.js';
import type { OpenApiV3 } from './openapi/v3.js';
import { createHandles, type Handles } from './handles.js';

export interface ConnectOptions {
  /**
   * Environment for KUBECONFIG, HOME, KUBECACHEDIR, KUBERNETES_SERVICE_HOST and proxies (default:
   * `process.env`, as client-node's `loadFromDefault()`; tests pass their own).
   */
  env?: Record<string, string | undefined>;
  /** A kubeconfig file (as `--kubeconfig`); default: $KUBECONFIG, then ~/.kube/config, then in-cluster. */
  kubeconfig?: string;
  /** kubectl's connection flags by long name: `{ context: 'prod', namespace: 'demo' }`, `server`, `token`... */
  flags?: ConfigFlags;
  /** Discovery cache directory (default: $KUBECACHEDIR, else ~/.kube/cache). */
  cacheDir?: string;
  /** How long cached discovery is fresh (default 10 minutes; 0 always revalidates). */
  cacheTtlMs?: number;
  /** Every request's time limit unless it gives its own `timeoutMs` (ms, 0 = none; default 0): `--request-timeout`. */
  requestTimeoutMs?: number;
  /** Where ambiguity warnings and server `Warning:` headers go (default: dropped). */
  onWarning?: (message: string) => void;
  /** Receives exec credential plugins' stderr (default: dropped). */
  stderr?: Output;
  cwd?: string;
  clock?: Clock;
  logger?: Logger;
}

/**
 * compose()'s options. Each field is read when the layer that needs it is built (the CLI passes
 * getters, so a bad `--request-timeout` fails only a command that talks to the server).
 */
export interface ComposeOptions extends Omit<ConnectOptions, 'flags'> {
  /** Flags by long name (the CLI passes all it parsed; loadRestConfig reads those in ConfigFlags). */
  readonly flags?: Readonly<Record<string, unknown>>;
  /** How errors name the setting behind `requestTimeoutMs` (default `requestTimeoutMs`; the CLI: `--request-timeout`). */
  readonly requestTimeoutSetting?: string;
  /** Whether standard input is a terminal (exec plugins' interactiveMode; default false). */
  readonly stdinIsTTY?: boolean;
  /** Hand big kubectl-layout cache writes to a background process (the CLI); default: written before flush() resolves. */
  readonly writeBehind?: WriteBehind;
  /** Discovery requests' time limit when `requestTimeoutMs` is 0 (default: kubectl's 32 s). */
  readonly discoveryTimeoutMs?: number;
  /** The merged kubeconfig, already read (a fleet reads the files once for every context). */
  readonly merged?: MergedKubeconfig;
}

/** The layers, each built once on first call. */
export interface Layers {
  /** The kubeconfig resolved with kubectl's precedence and the overrides in `flags`. */
  restConfig(): Promise<RestConfig>;
  /** `flags.namespace`, else the context's namespace, else `default`. */
  namespace(): Promise<string>;
  transport(): Promise<Transport>;
  /**
   * For a command that will talk to the server whatever happens: starts the connection now, so the
   * TCP and TLS handshakes overlap reading the discovery cache and resolving names. Resolves after
   * one turn of the event loop (the TCP connect completes and the TLS ClientHello goes out before
   * the caller's synchronous work); never rejects: a connection error is reported by the first request.
   */
  preconnect(): Promise<void>;
  discovery(): Promise<CachedDiscovery>;
  mapper(): Promise<RESTMapper>;
  dynamic(): Promise<DynamicClient>;
  /** The server's OpenAPI v3 documents, cached on disk under the discovery cache root (no request until used). */
  openapi(): Promise<OpenApiV3>;
  /** Waits for background work started by the layers (discovery cache writes); never rejects. */
  flush(): Promise<void>;
  /** Releases connections (keep-alive sockets) so the process can exit promptly. */
  close(): void;
}

export function compose(options: ComposeOptions): Layers {
  const w: Wiring = { options, clock: options.clock ?? systemClock, logger: options.logger ?? silentLogger, env: options.env ?? {} };
  const warn = (message: string): void => options.onWarning?.(message);
  let transportInstance: Transport | undefined;
  let discoveryInstance: { flush?(): Promise<void> } | undefined;

  const restConfig = once(() => loadConfig(w));
  const transport = once(async () => (transportInstance = await buildTransport(w, await restConfig())));
  const discovery = once(async () => (discoveryInstance = await buildDiscovery(w, restConfig, transport, () => transportInstance)));
  const mapper = once(async () => {
    const [d, { DeferredRESTMapper }] = await Promise.all([discovery(), import('./restmapper/deferred.js')]);
    return new DeferredRESTMapper(d, { warn });
  });
  const dynamic = once(async () => {
    const [t, { DynamicClient }] = await Promise.all([transport(), import('./dynamic/client.js')]);
    return new DynamicClient(t, { onWarning: warn });
  });
  const openapi = once(() => buildOpenApi(w, restConfig, transport));

  return {
    restConfig,
    namespace: async () => (await restConfig()).namespace,
    transport,
    preconnect: async () => {
      try {
        (await transport()).preconnect?.();
      } catch {
        // reported by the first request
      }
      await new Promise((r) => setImmediate(r));
    },
    discovery,
    mapper,
    dynamic,
    openapi,
    flush: async () => {
      await discoveryInstance?.flush?.();
    },
    close: () => transportInstance?.close(),
  };
}

/** `f`'s promise, made on the first call and returned to every later one. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/** What each layer's builder below reads: the options (a field only when its layer is built) and the defaults compose() chose. */
interface Wiring {
  options: ComposeOptions;
  clock: Clock;
  logger: Logger;
  env: Record<string, string | undefined>;
}

async function loadConfig({ options, env, logger, clock }: Wiring): Promise<RestConfig> {
  const { loadRestConfig } = await import('./kubeconfig/load.js');
  return loadRestConfig({
    flags: { ...(options.flags ?? {}), ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}) },
    env,
    cwd: options.cwd ?? '.',
    logger,
    clock,
    stderr: options.stderr ?? { write: () => true },
    merged: options.merged,
    // A getter: the CLI's answer loads node:tty (~1 ms), and only exec credential plugins need it.
    get stdinIsTTY() {
      return options.stdinIsTTY ?? false;
    },
  });
}

async function buildTransport({ options, env, logger, clock }: Wiring, config: RestConfig): Promise<Transport> {
  const { createTransport } = await import('./transport/http.js');
  return createTransport(config, {
    logger,
    clock,
    env,
    timeoutMs: options.requestTimeoutMs ?? 0,
    timeoutSetting: options.requestTimeoutSetting ?? 'requestTimeoutMs',
  });
}

/**
 * Cached discovery over a transport that is built (and node:https/tls loaded) only if discovery has
 * to ask the server: a warm cache answers without it. `built` is the transport once someone built it.
 */
async function buildDiscovery(w: Wiring, restConfig: () => Promise<RestConfig>, transport: () => Promise<Transport>, built: () => Transport | undefined) {
  const [config, { createCachedDiscovery }, { buildNameIndex }] = await Promise.all([restConfig(), import('./discovery/cached.js'), import('./restmapper/name-index.js')]);
  const lazy: Transport = {
    server: config.server.replace(/\/+$/, ''),
    request: async (o) => (await transport()).request(o),
    stream: async (o) => (await transport()).stream(o),
    close: () => built()?.close(),
  };
  const { options } = w;
  return createCachedDiscovery({
    transport: lazy,
    server: config.server,
    cacheDir: options.cacheDir,
    ttlMs: options.cacheTtlMs ?? 10 * 60 * 1000,
    env: w.env,
    clock: w.clock,
    logger: w.logger,
    writeBehind: options.writeBehind,
    index: buildNameIndex, // the RESTMapper's keys, stored in discovery's combined file
    ...(options.discoveryTimeoutMs !== undefined && { limits: { timeoutMs: options.discoveryTimeoutMs } }),
  });
}

async function buildOpenApi(w: Wiring, restConfig: () => Promise<RestConfig>, transport: () => Promise<Transport>): Promise<OpenApiV3> {
  const [config, t, { createOpenApiV3 }] = await Promise.all([restConfig(), transport(), import('./openapi/v3.js')]);
  return createOpenApiV3({
    transport: t,
    server: config.server,
    cacheDir: w.options.cacheDir,
    env: w.env,
    clock: w.clock,
    logger: w.logger,
    ...(w.options.discoveryTimeoutMs !== undefined && { timeoutMs: w.options.discoveryTimeoutMs }),
  });
}

/** Every layer, built; plus handles by name, typed kind or object (Handles, src/handles.ts). */
export interface Connection extends Handles {
  config: RestConfig;
  /** The kubeconfig context's namespace (or `default`). */
  namespace: string;
  transport: Transport;
  discovery: CachedDiscovery;
  mapper: RESTMapper;
  client: DynamicClient;
  /** The server's OpenAPI v3 documents (what `kdyn types` generates from). */
  openapi: OpenApiV3;
  /** Releases keep-alive connections so the process can exit. */
  close(): void;
}

export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  return connectComposed({ ...options, env: options.env ?? process.env });
}

/** connect(), given composition options: forEachContext hands each context the kubeconfig it already read. */
export async function connectComposed(options: ComposeOptions): Promise<Connection> {
  const layers = compose(options);
  try {
    const config = await layers.restConfig();
    const [transport, discovery, mapper, client, openapi] = await Promise.all([layers.transport(), layers.discovery(), layers.mapper(), layers.dynamic(), layers.openapi()]);
    const handles = createHandles({ mapper, client, namespace: config.namespace });
    return { config, namespace: config.namespace, transport, discovery, mapper, client, openapi, ...handles, close: layers.close };
  } catch (e) {
    layers.close();
    throw e;
  }
}
