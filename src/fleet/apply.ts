/**
 * `apply` to one or more contexts (issue 24; one cluster is a fleet of one, issue 36): the same
 * manifests, server-side applied to every selected context with that context's own mapper and
 * client (its namespace filling objects that have none), at most `concurrency` contexts at once
 * (each applying its objects with its own bound). Each object's result is handed over as it comes,
 * tagged with its context (`onResult`); each context's report, or the error that stopped it before
 * any object (down, no discovery), in the contexts' order (`onContext`). `--dry-run=server` across the fleet first is the safe path (docs/fleet.md);
 * `--dry-run=client` plans each context's requests with that context's mapper and sends nothing;
 * `--wait` waits for each context's objects on that context's connection, within the context's work.
 */
import type { Manifest } from '../apply/manifests.js';
import { applyManifests, type ApplyOptions, type ApplyReport, type ApplyResult } from '../apply/apply.js';
import { planRequests } from '../apply/requests.js';
import { waitForApplied } from '../apply/report.js';
import { systemClock, type Clock } from '../core/clock.js';
import { fanOut, type ContextResult } from './fanout.js';
import type { Member as GetMember } from './member.js';
import type { CachedDiscovery } from '../discovery/types.js';

/** A context to apply to: get's member, plus its discovery, invalidated when a CRD or APIService is written. */
type Member = GetMember & { discovery?(): Promise<CachedDiscovery> };

export interface FleetApplyOptions {
  /** Every context's apply options (`namespace`: each context's own unless given). */
  apply: Omit<ApplyOptions, 'signal'>;
  concurrency?: number;
  /** Once aborted, no new request starts anywhere (SIGINT). */
  signal?: AbortSignal;
  clock?: Clock;
  /** `--wait`: after a context's apply (not a dry run, not interrupted), wait until its objects are ready, at most this long. */
  wait?: { timeoutMs: number };
  /** Each object's result as it comes (in each context's input order). */
  onResult?(context: string, result: ApplyResult): void;
  /** Each context's report (or error), in the contexts' order. */
  onContext(result: ContextResult<ContextApply>): void;
}

/** One context's apply: its report and, with `wait`, how many objects became ready and a line for each that did not. */
export interface ContextApply {
  report: ApplyReport;
  waited?: { ready: number; errors: string[]; interrupted: boolean };
}

export async function applyContexts(contexts: readonly string[], open: (context: string) => Member, manifests: readonly Manifest[], o: FleetApplyOptions): Promise<Array<ContextResult<ContextApply>>> {
  return perContext(contexts, open, manifests, o, async (copy, m, namespace, context) => {
    await m.preconnect?.();
    const [mapper, client, ns, discovery] = await Promise.all([m.mapper(), m.dynamic(), namespace(), m.discovery?.()]);
    const onResult = o.onResult && ((r: ApplyResult) => o.onResult!(context, r));
    // A CRD or APIService written invalidates discovery for the next kdyn and kubectl runs (written at the context's flush()).
    const report = await applyManifests(copy, { mapper, client, clock: o.clock, discovery }, { ...o.apply, namespace: ns, signal: o.signal, onResult });
    if (!o.wait || o.apply.dryRun || report.interrupted) return { report };
    // As a single-context --wait: this context's objects, watched on its own connection.
    const signal = o.signal ?? new AbortController().signal;
    const waited = await waitForApplied(report, client, { clock: o.clock ?? systemClock, timeoutMs: o.wait.timeoutMs, signal });
    return { report, waited: { ...waited, interrupted: signal.aborted } };
  });
}

/** What `--dry-run=client` would send to one context: its requests, and the objects it cannot map. */
export type ContextPlan = Awaited<ReturnType<typeof planRequests>>;

/** `--dry-run=client` over the contexts: each context's requests, planned with its own mapper (reads discovery only). */
export async function planContexts(contexts: readonly string[], open: (context: string) => Member, manifests: readonly Manifest[], o: Omit<FleetApplyOptions, 'onContext' | 'wait' | 'onResult'> & { onContext(result: ContextResult<ContextPlan>): void }): Promise<Array<ContextResult<ContextPlan>>> {
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
  o: Omit<FleetApplyOptions, 'onContext' | 'onResult'> & { onContext(result: ContextResult<T>): void },
  work: (copy: Manifest[], m: Member, namespace: () => Promise<string>, context: string) => Promise<T>,
): Promise<Array<ContextResult<T>>> {
  return fanOut<Member, T>(
    contexts,
    // Each context gets its own copy: what one server answers must not leak into another's request.
    (m, context) => work(structuredClone(manifests) as Manifest[], m, async () => o.apply.namespace ?? m.namespace(), context),
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
