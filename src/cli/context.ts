/**
 * The composition root: flags -> kubeconfig -> transport -> discovery -> RESTMapper -> dynamic client.
 * Everything is built lazily, on first use, and each layer's code is imported only then, so
 * `kdyn version --client` never loads the transport and `kdyn version` never loads discovery.
 */
import type { Clock } from '../core/clock.js';
import type { IO } from '../core/io.js';
import type { Logger } from '../core/log.js';
import type { Transport } from '../transport/types.js';
import type { CachedDiscovery } from '../discovery/types.js';
import type { RestConfig } from '../kubeconfig/types.js';
import type { RESTMapper } from '../restmapper/types.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { ParsedArgs } from './spec.js';
import { parseDuration } from './duration.js';
import { DISCOVERY_TIMEOUT_MS } from '../core/timeouts.js';

export interface Context {
  readonly flags: ParsedArgs['flags'];
  readonly explicit: ReadonlySet<string>;
  readonly io: IO;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Discovery's (and `/version`'s) time limit when there is no --request-timeout: kubectl's 32 s. */
  readonly discoveryTimeoutMs: number;
  /** The kubeconfig resolved with kubectl's precedence and the command-line overrides. */
  restConfig(): Promise<RestConfig>;
  /** `-n`, else the context's namespace, else `default`. */
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
  /** Waits for background work started by the layers (discovery cache writes); never rejects. */
  flush(): Promise<void>;
  /** Releases connections (keep-alive sockets) so the process can exit promptly. */
  close(): void;
}

/** Settings main() injects beyond the flags (tests shorten discovery's 32-second timeout with them). */
export interface ContextOptions {
  /** Discovery requests' time limit when there is no --request-timeout (default: kubectl's 32 s). */
  discoveryTimeoutMs?: number;
}

export function createContext(args: Pick<ParsedArgs, 'flags' | 'explicit'>, io: IO, clock: Clock, logger: Logger, options: ContextOptions = {}): Context {
  const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= f());
  };
  const discoveryTimeoutMs = options.discoveryTimeoutMs ?? DISCOVERY_TIMEOUT_MS;
  let transportInstance: Transport | undefined;
  let discoveryInstance: CachedDiscovery | undefined;
  const flags = args.flags;

  const restConfig = once(async () => {
    const { loadRestConfig } = await import('./layers.js');
    return loadRestConfig({
      flags,
      env: io.env,
      cwd: io.cwd,
      logger,
      clock,
      stderr: io.stderr,
      // A getter: asking loads node:tty (~1 ms), and only exec credential plugins need the answer.
      get stdinIsTTY() {
        return io.stdinIsTTY ?? (io.stdin as { isTTY?: boolean } | undefined)?.isTTY === true;
      },
    });
  });
  const transport = once(async () => {
    const config = await restConfig();
    const { createTransport } = await import('../transport/http.js');
    transportInstance = createTransport(config, {
      logger,
      clock,
      env: io.env,
      timeoutMs: parseDuration(String(flags['request-timeout'] ?? '0'), 'request-timeout'),
    });
    return transportInstance;
  });
  const discovery = once(async () => {
    const [config, mod] = await Promise.all([restConfig(), import('./layers.js')]);
    // The transport (and node:https/tls) is loaded only if discovery has to ask the server:
    // a warm cache answers without it.
    const lazy: Transport = {
      server: config.server.replace(/\/+$/, ''),
      request: async (o) => (await transport()).request(o),
      stream: async (o) => (await transport()).stream(o),
      close: () => transportInstance?.close(),
    };
    return (discoveryInstance = mod.createCachedDiscovery({
      transport: lazy,
      server: config.server,
      cacheDir: flags['cache-dir'] as string | undefined,
      ttlMs: parseDuration(String(flags['cache-ttl'] ?? '10m'), 'cache-ttl'),
      env: io.env,
      clock,
      logger,
      // A cold cache on a cluster with many CRD groups means ~1,000 kubectl-layout files: written by
      // a detached process so kdyn exits as soon as its own combined file is on disk.
      writeBehind: { threshold: mod.DEFAULT_WRITE_BEHIND_THRESHOLD, start: startLayoutWriter },
      limits: { timeoutMs: discoveryTimeoutMs },
    }));
  });
  const mapper = once(async () => {
    const [d, mod] = await Promise.all([discovery(), import('./layers.js')]);
    return new mod.DeferredRESTMapper(d, { warn: (msg: string) => io.stderr.write(`Warning: ${msg}\n`) });
  });
  const dynamic = once(async () => {
    const [t, mod] = await Promise.all([transport(), import('./layers.js')]);
    return new mod.DynamicClient(t, { onWarning: (msg: string) => io.stderr.write(`Warning: ${msg}\n`) });
  });

  return {
    flags,
    explicit: args.explicit,
    io,
    clock,
    logger,
    discoveryTimeoutMs,
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
    flush: async () => {
      await discoveryInstance?.flush?.();
    },
    close: () => transportInstance?.close(),
  };
}

/**
 * Starts the background layout writer (dist/cli/layout-writer.js next to the bundle, or
 * build/src/cli/layout-writer.js when running transpiled): detached, no stdio, only paths as arguments.
 */
async function startLayoutWriter(job: { root: string; server: string }): Promise<void> {
  const [{ spawn }, { fileURLToPath }, { basename, dirname, join }] = await Promise.all([import('node:child_process'), import('node:url'), import('node:path')]);
  let dir = dirname(fileURLToPath(import.meta.url));
  if (basename(dir) === 'chunks') dir = dirname(dir);
  const child = spawn(process.execPath, [join(dir, 'layout-writer.js'), job.root, job.server], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}
