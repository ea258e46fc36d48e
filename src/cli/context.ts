/**
 * The CLI's context: the composition root's layers (src/connect.ts compose(), each built
 * lazily on first use) configured from the command line's flags and IO, plus what commands read
 * directly (flags, IO, clock, logger).
 */
import type { Clock } from '../core/clock.js';
import type { IO } from '../core/io.js';
import type { Logger } from '../core/log.js';
import type { MergedKubeconfig } from '../kubeconfig/types.js';
import { compose, type Layers } from '../connect.js';
import type { ParsedArgs } from './command-types.js';
import { parseDuration } from './duration.js';
import { DISCOVERY_TIMEOUT_MS } from '../core/timeouts.js';

export interface Context extends Layers {
  readonly flags: ParsedArgs['flags'];
  readonly explicit: ReadonlySet<string>;
  readonly io: IO;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Discovery's (and `/version`'s) time limit when there is no --request-timeout: kubectl's 32 s. */
  readonly discoveryTimeoutMs: number;
}

/** Settings main() injects beyond the flags (tests shorten discovery's 32-second timeout with them). */
export interface ContextOptions {
  /** Discovery requests' time limit when there is no --request-timeout (default: kubectl's 32 s). */
  discoveryTimeoutMs?: number;
  /** Put in front of server warnings (`context "east": `): a fleet's per-context contexts. */
  warningPrefix?: string;
  /** The merged kubeconfig, already read (a fleet reads the files once for every context). */
  merged?: MergedKubeconfig;
}

export function createContext(args: Pick<ParsedArgs, 'flags' | 'explicit'>, io: IO, clock: Clock, logger: Logger, options: ContextOptions = {}): Context {
  const flags = args.flags;
  const discoveryTimeoutMs = options.discoveryTimeoutMs ?? DISCOVERY_TIMEOUT_MS;
  const warn = (msg: string): void => void io.stderr.write(`Warning: ${options.warningPrefix ?? ''}${msg}\n`);
  const layers = compose({
    merged: options.merged,
    flags,
    env: io.env,
    cwd: io.cwd,
    stderr: io.stderr,
    clock,
    logger,
    onWarning: warn,
    cacheDir: flags['cache-dir'] as string | undefined,
    // Getters: read (and checked) only when the layer that needs them is built.
    get requestTimeoutMs() {
      return parseDuration(String(flags['request-timeout'] ?? '0'), 'request-timeout');
    },
    requestTimeoutSetting: '--request-timeout',
    get cacheTtlMs() {
      return parseDuration(String(flags['cache-ttl'] ?? '10m'), 'cache-ttl');
    },
    // Asking loads node:tty (~1 ms), and only exec credential plugins need the answer.
    get stdinIsTTY() {
      return io.stdinIsTTY ?? (io.stdin as { isTTY?: boolean } | undefined)?.isTTY === true;
    },
    // A cold cache on a cluster with many CRD groups means ~1,000 kubectl-layout files: written by
    // a detached process so kdyn exits as soon as its own combined file is on disk.
    // Loaded with discovery (cached.ts imports write-behind.ts), so importing it here costs nothing.
    writeBehind: { start: async (job) => (await import('../discovery/write-behind.js')).startLayoutWriter(job) },
    discoveryTimeoutMs,
  });
  // A CLI process exits as soon as its command settles, and its connections go with it, as kubectl's
  // do. Destroying each socket first was work for nothing: 1-3 ms of a 10-cluster fleet get, where
  // every context closes as it finishes, while others still wait for their turn on the one thread.
  // In-process runs (tests calling main()) close as before.
  const close = io.exitsAfterRun ? () => undefined : layers.close;
  return { ...layers, close, flags, explicit: args.explicit, io, clock, logger, discoveryTimeoutMs };
}
