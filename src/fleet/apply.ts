/**
 * `apply` to a fleet (issue 24): the same manifests, server-side applied to every selected context
 * with that context's own mapper and client (its namespace filling objects that have none), at most
 * `concurrency` contexts at once (each applying its objects with its own bound). Each context's
 * report, or the error that stopped it before any object (down, no discovery), is handed over in
 * the contexts' order. `--dry-run=server` across the fleet first is the safe path (docs/fleet.md).
 */
import type { Clock } from '../core/clock.js';
import type { Manifest } from '../apply/manifests.js';
import { applyManifests, type ApplyOptions, type ApplyReport } from '../apply/apply.js';
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
  return fanOut<Member, ApplyReport>(
    contexts,
    async (m) => {
      await m.preconnect?.();
      const [mapper, client, namespace] = await Promise.all([m.mapper(), m.dynamic(), o.apply.namespace ?? m.namespace()]);
      // Each context gets its own copy: what one server answers must not leak into another's request.
      return applyManifests(structuredClone(manifests) as Manifest[], { mapper, client, clock: o.clock }, { ...o.apply, namespace, signal: o.signal });
    },
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
