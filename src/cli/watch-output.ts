/**
 * Where a watch's events go (./commands/watch.ts): the hooks of the watch over contexts
 * (../fleet/watch.ts) feeding either the appending output, the watch printer decorated with the
 * context for a fleet (../printers/context-watch.ts), or the live view on a terminal (./watch-live.ts:
 * one context's, or a fleet's with a CONTEXT column). One context's error is the command's (thrown
 * after the output so far); a fleet's failed context is one stderr line, the others go on.
 */
import type { IO } from '../core/io.js';
import type { Context } from './context.js';
import type { ParsedArgs } from './command-types.js';
import type { MultiWatchSource } from '../watch/multi.js';
import type { GetPlan } from '../restmapper/args.js';
import type { ContextWatchOptions } from '../fleet/watch.js';
import { withContext, type ContextEventPrinter } from '../printers/context-watch.js';
import { parseNamespaces } from '../fleet/namespaces.js';
import { createPrinter } from '../printers/index.js';
import type { FleetRequest } from './fleet.js';
import { waitForEnd, type WatchOptions } from './watch-options.js';
import { createLivePrinter, namespacesLabel } from './watch-live.js';

/** The hooks the watch over contexts calls, and what the command reads once it ended. */
export interface WatchOutput {
  hooks: Omit<ContextWatchOptions, 'args' | 'prog' | 'namespaces' | 'allNamespaces' | 'watch' | 'maxEvents' | 'until' | 'checkOnce'>;
  /** Gives the terminal back, writes what was held back; a fleet's failed contexts (live view) after it. */
  end(): void;
  /** Contexts whose --for was not met. */
  readonly unmet: number;
  /** One context's error (not a fleet's): the command throws it once the output is done. */
  readonly error?: { error: unknown };
}

export interface WatchOutputSetup {
  args: ParsedArgs;
  ctx: Context;
  opts: WatchOptions;
  mode: 'watch' | 'get';
  fleet: FleetRequest & { fleet: boolean };
  live: boolean;
  /** `q` (quit) or Ctrl-C (interrupt) in the live view. */
  onQuit: (how: 'quit' | 'interrupt') => void;
}

export async function createWatchOutput(s: WatchOutputSetup, io: IO): Promise<WatchOutput> {
  const { opts, fleet } = s;
  // One context: kubectl's NAMESPACE column with -A and a namespaced type, kinds named with several kinds.
  const withNamespace = (plan?: GetPlan) => (plan ? opts.allNamespaces && plan.requests.some((r) => r.mapping.namespaced) : opts.allNamespaces || (fleet.namespaces?.length ?? 0) > 1);
  const withKind = (sources?: readonly MultiWatchSource[]) => (sources ? new Set(sources.map((t) => `${t.gk.kind}.${t.gk.group}`)).size > 1 : s.args.args[0]?.includes(',') === true);
  if (s.live) return liveOutput(s, withNamespace, withKind, io);

  const o = opts.output;
  let printer: Promise<ContextEventPrinter> | undefined;
  let out: ContextEventPrinter | undefined;
  let unmet = 0;
  let error: { error: unknown } | undefined;
  // --for without -o prints only kubectl wait's lines.
  const quiet = opts.waitFor !== undefined && !o.explicit;
  const decoration = fleet.fleet ? { showContext: fleet.showContext, withNamespace: withNamespace() } : undefined;
  const create = async (plan: GetPlan, sources: readonly MultiWatchSource[]) => {
    const events = await createPrinter(o, {
      events: opts.events,
      // A fleet's NAMESPACE is a column of its own, after CONTEXT (the decoration's).
      withNamespace: decoration ? false : withNamespace(plan),
      withKind: withKind(decoration ? undefined : sources),
      keepManagedFields: o.showManagedFields || (s.mode === 'get' && opts.events && (o.format === 'json' || o.format === 'yaml')),
      quiet,
      verbose: s.ctx.logger.enabled(1),
    }, io);
    return (out = await withContext(events, o, decoration, quiet));
  };
  return {
    hooks: {
      // The printer is made once the first context's types are known (one context's output depends on them).
      onStart: async (_context, sources, plan) => void (await (printer ??= create(plan, sources))),
      onEvents: (context, events) => out!.event(context, events),
      onError: (context, e) => {
        if (!fleet.fleet) return void (error ??= { error: e });
        out?.notice(''); // the events so far first
        fleet.report(context, e);
      },
      onRetry: (context, r, src) => out!.retry(context, src, r),
      onResume: (context, r, src) => out!.resume(context, src, r),
      // A 410 before any list (a watch from --resource-version): every object is printed as ADDED,
      // which a script asking for the changes since RV could not tell from creations.
      onRelist: (context, r, src) => {
        if (!src.listed) out!.relist(context, src, r, opts.resourceVersion);
      },
      onGone: (context, src, e) => out!.gone(context, src, e),
      // --for: each context's kubectl wait lines (a fleet's objects named `CONTEXT/kind/name`).
      onEnd: (context, r) => {
        if (!opts.waitFor) return;
        const end = waitForEnd(opts, r);
        if (!end.met) unmet++;
        out!.waitEnd(context, end);
      },
    },
    end: () => out?.end(),
    get unmet() {
      return unmet;
    },
    get error() {
      return error;
    },
  };
}

/**
 * The live view: one table (a fleet's with CONTEXT first and each context's state in the header,
 * opened at once; one context's once its types are known, kubectl's columns). A fleet's failed
 * contexts are reported after it; one context's error is the command's.
 */
async function liveOutput(s: WatchOutputSetup, withNamespace: (plan?: GetPlan) => boolean, withKind: (sources?: readonly MultiWatchSource[]) => boolean, io: IO): Promise<WatchOutput> {
  const { fleet, opts } = s;
  const setup = { opts, clock: s.ctx.clock, onQuit: s.onQuit, contexts: fleet.contexts, showContext: fleet.showContext };
  const open = async (namespaces: readonly string[] | undefined, plan?: GetPlan, sources?: readonly MultiWatchSource[]) => {
    const label = !plan || plan.requests.some((r) => r.mapping.namespaced) ? namespacesLabel(opts.allNamespaces, namespaces) : undefined;
    const context = fleet.showContext ? undefined : (await s.ctx.restConfig()).contextName;
    return createLivePrinter({ ...setup, withNamespace: withNamespace(plan), withKind: withKind(sources), context, namespaces: label, sources }, io);
  };
  let view = fleet.fleet ? await open(fleet.namespaces ?? parseNamespaces(s.args.flags.namespace)) : undefined;
  let error: { error: unknown } | undefined;
  return {
    hooks: {
      onStart: async (_context, sources, plan) => {
        view ??= await open(opts.allNamespaces ? undefined : [await s.ctx.namespace()], plan, sources);
      },
      onEvents: (c, events, sources) => view!.events(fleet.showContext ? c : undefined, events, sources),
      onError: (c, e) => {
        if (fleet.fleet) view!.failed(c, e);
        else error ??= { error: e };
      },
      onRetry: (...a) => view!.hooks.onRetry(...a),
      onResume: (...a) => view!.hooks.onResume(...a),
      onRelist: (...a) => view!.hooks.onRelist(...a),
      onListed: (...a) => view!.hooks.onListed(...a),
      onGone: (...a) => view!.hooks.onGone(...a),
    },
    end: () => view?.end(fleet.report),
    unmet: 0,
    get error() {
      return error;
    },
  };
}
