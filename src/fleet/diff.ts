/**
 * `diff` over one or more contexts (issue 37; one cluster is a fleet of one, issue 36): the same
 * manifests diffed against every selected context with that context's own mapper and client (its
 * namespace filling objects that have none), at most `concurrency` contexts at once. Each context's
 * unified diff (kubectl's diff program over that context's trees: ../diff/program.ts), or the error
 * that stopped it, is handed over in the contexts' order, tagged with its context (`onContext`).
 */
import type { Manifest } from '../apply/manifests.js';
import type { Clock } from '../core/clock.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper } from '../restmapper/types.js';
import { diffManifests, type DiffOptions } from '../diff/diff.js';
import { unifiedDiff, type ProgramRun } from '../diff/program.js';
import { fanOut, type ContextResult } from './fanout.js';
import type { Member } from './member.js';

/** Per context, before its diff: the input as it is to be diffed, and what a prune would delete (`--prune --applyset`). */
export type DiffPreparation = (deps: { client: DynamicClient; mapper: RESTMapper }, manifests: Manifest[], namespace: string) => Promise<{ manifests: Manifest[]; pruned?: DiffOptions['pruned'] }>;

export interface FleetDiffOptions {
  /** Every context's diff options (`namespace`: each context's own unless given). */
  diff: Omit<DiffOptions, 'onWarning' | 'pruned'>;
  /** The environment of the diff program (PATH, TMPDIR, KUBECTL_EXTERNAL_DIFF). */
  env: Readonly<Record<string, string | undefined>>;
  concurrency?: number;
  clock?: Clock;
  prepare?: DiffPreparation;
  /** A context's warnings as they come (../diff/diff.ts's `onWarning`). */
  onWarning?(context: string, message: string, style: 'klog' | 'plain'): void;
  /** Each context's diff (or error), in the contexts' order. */
  onContext(result: ContextResult<ProgramRun>): void;
}

export function diffContexts(contexts: readonly string[], open: (context: string) => Member, manifests: readonly Manifest[], o: FleetDiffOptions): Promise<Array<ContextResult<ProgramRun>>> {
  return fanOut<Member, ProgramRun>(
    contexts,
    async (m, context) => {
      await m.preconnect?.();
      const [mapper, client, namespace] = await Promise.all([m.mapper(), m.dynamic(), o.diff.namespace ?? m.namespace()]);
      // Each context gets its own copy: what one server answers must not leak into another's request.
      let input = structuredClone(manifests) as Manifest[];
      let pruned: DiffOptions['pruned'];
      if (o.prepare) ({ manifests: input, pruned } = await o.prepare({ client, mapper }, input, namespace));
      const onWarning = o.onWarning && ((message: string, style: 'klog' | 'plain') => o.onWarning!(context, message, style));
      const report = await diffManifests(input, { mapper, client }, { ...o.diff, namespace, pruned, onWarning });
      return unifiedDiff(report.objects, { env: o.env });
    },
    {
      open,
      close: async (m) => {
        await m.flush?.();
        m.close();
      },
      concurrency: o.concurrency,
      clock: o.clock,
      onResult: (r) => o.onContext(r),
    },
  );
}
