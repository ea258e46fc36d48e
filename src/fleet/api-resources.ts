/**
 * `api-resources` over one or more contexts, the fetching half alone (one context is a fleet of
 * one): each context's discovery (its own cache, as `--context NAME` alone), revalidated as kubectl
 * does (its cached ETags sent; a 304 costs no download) unless `cachedOnly`, and its snapshot handed
 * over in the contexts' order (./fanout.ts). Printing is the caller's (../printers/api-resources.ts
 * adds the context where there are several).
 */
import type { CachedDiscovery, DiscoverySnapshot } from '../discovery/types.js';
import { fanOut, type ContextResult } from './fanout.js';

export interface DiscoveryMember {
  discovery(): Promise<CachedDiscovery>;
  preconnect?(): Promise<void>;
  flush?(): Promise<void>;
  close(): void;
}

export interface FetchApiResourcesOptions {
  /** Answer from the disk alone (--cached): no request. */
  cachedOnly: boolean;
  concurrency?: number;
  /** Releases a context's connection (default: flush, then close: cache files are written after the answer). */
  close?(member: DiscoveryMember, context: string): void | Promise<void>;
  /** Turns the snapshot error of cachedOnly without a cache into the command's error. */
  snapshotError?(e: unknown): Promise<never>;
}

export interface ContextDiscovery {
  snapshot: DiscoverySnapshot;
  discovery: CachedDiscovery;
}

/** Each context's discovery snapshot (or its error) to `settled`, in the contexts' order. */
export async function visitApiResources(contexts: readonly string[], open: (context: string) => DiscoveryMember, o: FetchApiResourcesOptions, settled: (r: ContextResult<ContextDiscovery>) => void): Promise<void> {
  await fanOut<DiscoveryMember, ContextDiscovery>(
    contexts,
    async (m) => {
      // The TLS handshake overlaps reading the cache (ETags) and loading the printer.
      if (!o.cachedOnly) await m.preconnect?.();
      const discovery = await m.discovery();
      if (!o.cachedOnly) discovery.invalidate(); // revalidated, as kubectl's Invalidate() unless --cached
      const snapshot = await discovery.snapshot({ cachedOnly: o.cachedOnly }).catch((e: unknown) => (o.snapshotError ? o.snapshotError(e) : Promise.reject(e)));
      return { snapshot, discovery };
    },
    {
      open,
      close: o.close ?? (async (m) => {
        await m.flush?.();
        m.close();
      }),
      concurrency: o.concurrency,
      onResult: settled,
    },
  );
}
