/**
 * `apply` to a fleet (issue 24): the same manifests, server-side applied to every selected context
 * with that context's own mapper and client (its namespace filling objects that have none), at most
 * `concurrency` contexts at once (each applying its objects with its own bound). Each context's
 * report, or the error that stopped it before any object (down, no discovery), is handed over in
 * the contexts' order. `--dry-run=server` across the fleet first is the safe path (docs/fleet.md);
 * `--dry-run=client` plans each context's requests with that context's mapper and sends nothing.
 */
import type { Clock } from '../core/clock.js';
import type { Manifest } from '../apply/manifests.js';
import { applyManifests, type ApplyOptions, type ApplyReport } from '../apply/apply.js';
import { planRequests } from '../apply/requests.js';
import { fanOut, type ContextResult } from './fanout.js';
import type { Member } from './get.js';

export interface FleetApplyOptions {
  /** Every context's apply options (`namespace`: each context's own unless given). */
  apply: Omit<ApplyOptions, 'signal'>;
  concurrency?: number;
  /** Once aborted, no new request starts anywhere (SIGINT). */
  signal?: AbortSignal;
  clock?: Clock;
  /** Each context's report (or error), in the contexts' order. */
  onContext(result: ContextResult<ApplyReport>): void;
}

export async function fleetApply(contexts: readonly string[], open: (context: string) => Member, manifests: readonly Manifest[], o: FleetApplyOptions): Promise<Array<ContextResult<ApplyReport>>> {
  return perContext(contexts, open, manifests, o, async (copy, m, namespace) => {
    await m.preconnect?.();
    const [mapper, client, ns] = await Promise.all([m.mapper(), m.dynamic(), namespace()]);
    return applyManifests(copy, { mapper, client, clock: o.clock }, { ...o.apply, namespace: ns, signal: o.signal });
  });
}

/** What `--dry-run=client` would send to one context: its requests, and the objects it cannot map. */
export type ContextPlan = Awaited<ReturnType<typeof planRequests>>;

/** `--dry-run=client` over the fleet: each context's requests, planned with its own mapper (reads discovery only). */
export async function fleetPlan(contexts: readonly string[], open: (context: string) => Member, manifests: readonly Manifest[], o: Omit<FleetApplyOptions, 'onContext'> & { onContext(result: ContextResult<ContextPlan>): void }): Promise<Array<ContextResult<ContextPlan>>> {
  // As for one context: no connection beyond discovery's (none with a fresh cache).
  return perContext(contexts, open, manifests, o, async (copy, m, namespace) => {
    const [mapper, ns] = await Promise.all([m.mapper(), namespace()]);
    return planRequests(copy, { mapper }, { ...o.apply, namespace: ns });
  });
}

/** Runs `work` per context with its own copy of the manifests and its namespace (the one given, else the context's). */
async function perContext<T>(
  contexts: readonly string[],
  open: (context: string) => Member,
  manifests: readonly Manifest[],
  o: Omit<FleetApplyOptions, 'onContext'> & { onContext(result: ContextResult<T>): void },
  work: (copy: Manifest[], m: Member, namespace: () => Promise<string>) => Promise<T>,
): Promise<Array<ContextResult<T>>> {
  return fanOut<Member, T>(
    contexts,
    // Each context gets its own copy: what one server answers must not leak into another's request.
    (m) => work(structuredClone(manifests) as Manifest[], m, async () => o.apply.namespace ?? m.namespace()),
    {
      open,
      close: async (m) => {
        await m.flush?.();
        m.close();
      },
      concurrency: o.concurrency,
      signal: o.signal,
      clock: o.clock,
      onResult: (r) => o.onContext(r),
    },
  );
}
