/**
 * `watch` over several contexts and/or namespaces (issue 24): per context, the arguments are
 * resolved with its own RESTMapper and one MultiWatch (../watch/multi.ts) watches every type (and
 * namespace) there, with its own reflectors and backoff. Every context runs at once; one that is
 * down is retried by its watchers (a warm discovery cache lets it start while down) and one whose
 * watch fails for good (forbidden, a bad selector) is reported and stops alone; the others go on
 * until the shared stop (a timeout, --max-events over all contexts, a signal). With `until` (`--for`)
 * each context also ends on its own once its condition holds. Nothing here prints.
 */
import type { GetPlan } from '../restmapper/args.js';
import { resolveGetArgs } from '../restmapper/args.js';
import type { DynamicClient } from '../dynamic/client.js';
import { MultiWatch, type MultiWatchEvent, type MultiWatchOptions, type MultiWatchResult, type MultiWatchSource, type MultiWatchTarget } from '../watch/multi.js';
import { fanOut } from './fanout.js';
import type { Member } from './get.js';

/** The targets of a plan: each resource (and name) in each namespace (one undefined: the handle's scope). */
export function watchTargets(plan: GetPlan, client: DynamicClient, namespaces: ReadonlyArray<string | undefined>): MultiWatchTarget[] {
  const targets: MultiWatchTarget[] = [];
  for (const req of plan.requests) {
    const m = req.mapping;
    const gk = { group: m.gvk.group, kind: m.gvk.kind };
    const type = m.gvr.group ? `${m.gvr.resource}.${m.gvr.group}` : m.gvr.resource;
    for (const ns of m.namespaced ? namespaces : [undefined]) {
      let handle = client.resource(m.gvr, { namespaced: m.namespaced });
      if (m.namespaced && ns) handle = handle.namespace(ns);
      for (const name of req.names.length > 0 ? req.names : [undefined]) targets.push({ handle, gk, type, resource: m.gvr.resource, name });
    }
  }
  return targets;
}

/** What MultiWatch's hooks see, with the context they belong to. */
export interface FleetWatchHooks {
  onRetry?: (context: string, ...a: Parameters<NonNullable<MultiWatchOptions['onRetry']>>) => void;
  onResume?: (context: string, ...a: Parameters<NonNullable<MultiWatchOptions['onResume']>>) => void;
  onRelist?: (context: string, ...a: Parameters<NonNullable<MultiWatchOptions['onRelist']>>) => void;
  onListed?: (context: string, ...a: Parameters<NonNullable<MultiWatchOptions['onListed']>>) => void;
  onGone?: (context: string, ...a: Parameters<NonNullable<MultiWatchOptions['onGone']>>) => void;
}

export interface FleetWatchOptions extends FleetWatchHooks {
  args: readonly string[];
  prog?: string;
  namespaces?: readonly string[];
  allNamespaces: boolean;
  /** Every context's MultiWatch options (not its hooks, `signal`, `maxEvents`, `until`). */
  watch: Omit<MultiWatchOptions, 'signal' | 'maxEvents' | 'until' | 'checkOnce' | 'onRetry' | 'onResume' | 'onRelist' | 'onListed' | 'onGone'>;
  /** Stop every context once this many events were delivered in all. */
  maxEvents?: number;
  /**
   * Each context's own end (`--for`): its watch stops (reason `done`) once this holds for its
   * sources, or at its `timeoutMs` (`timeout`); the others go on.
   */
  until?: MultiWatchOptions['until'];
  /** With `until`: check once every target is synced, then stop (`timeout` if unmet). */
  checkOnce?: boolean;
  /** A context's watch ended without an error (its reason and sources: what `--for` reports). */
  onEnd?(context: string, result: MultiWatchResult): void;
  signal?: AbortSignal;
  /** A batch of one context's events (its initial list in one batch with `initialBlock`). */
  onEvents(context: string, events: MultiWatchEvent[], sources: readonly MultiWatchSource[]): void;
  /** A context whose watch could not start or ended with an error; the others go on. */
  onError(context: string, error: unknown): void;
}

export interface FleetWatchResult {
  /** Why the run stopped: `done` (maxEvents), the MultiWatch reason of the contexts (`timeout`, `aborted`), or undefined. */
  reason?: string;
  failures: number;
}

export async function fleetWatch(contexts: readonly string[], open: (context: string) => Member, o: FleetWatchOptions): Promise<FleetWatchResult> {
  const stop = new AbortController();
  const outer = () => stop.abort();
  o.signal?.addEventListener('abort', outer, { once: true });
  let delivered = 0;
  let done = false;
  let reason: string | undefined;
  let failures = 0;
  const watchOne = async (m: Member, context: string): Promise<void> => {
    await m.preconnect?.();
    const [mapper, client] = await Promise.all([m.mapper(), m.dynamic()]);
    const plan = await resolveGetArgs(o.args, mapper, o.prog);
    const namespaces = o.allNamespaces ? [undefined] : (o.namespaces ?? [await m.namespace()]);
    const multi = new MultiWatch(watchTargets(plan, client, namespaces), {
      ...o.watch,
      until: o.until,
      checkOnce: o.checkOnce,
      signal: stop.signal,
      onRetry: (r, s) => o.onRetry?.(context, r, s),
      onResume: (r, s) => o.onResume?.(context, r, s),
      onRelist: (r, s) => o.onRelist?.(context, r, s),
      onListed: (s) => o.onListed?.(context, s),
      onGone: (s, e) => o.onGone?.(context, s, e),
    });
    const result = await multi.run((events) => {
      if (done) return;
      if (o.maxEvents !== undefined && delivered + events.length >= o.maxEvents) {
        events = events.slice(0, o.maxEvents - delivered);
        done = true;
        stop.abort();
      }
      delivered += events.length;
      o.onEvents(context, events, multi.sources);
    });
    if (result.error !== undefined) throw result.error;
    if (result.reason !== 'aborted') reason ??= result.reason;
    // --max-events ended the run: every context ends as a single-context watch ending on it does
    // (with --for: the lines of what is met, exit 0), not as a context stopped from outside.
    o.onEnd?.(context, done ? { ...result, reason: 'done' } : result);
  };
  try {
    await fanOut<Member, void>(
      contexts,
      async (m, context) => {
        // Reported at once (not in the contexts' order): the others' watches go on for ever.
        try {
          await watchOne(m, context);
        } catch (e) {
          if (done || stop.signal.aborted) return;
          failures++;
          o.onError(context, e);
        }
      },
      {
        open,
        close: async (m) => {
          await m.flush?.();
          m.close();
        },
        // Every watch runs until the end: no context may wait for another's turn.
        concurrency: contexts.length,
        onResult: (r) => {
          if (!r.ok) {
            failures++;
            o.onError(r.context, r.error);
          }
        },
      },
    );
  } finally {
    o.signal?.removeEventListener('abort', outer);
  }
  return { reason: done ? 'done' : reason, failures };
}
