/**
 * The command line's side of fleets (issue 24; the work is in ../fleet/): whether `--context`,
 * `--all-contexts` and `-n` ask for several contexts or namespaces, the contexts they select, a
 * context (./context.ts) per selected kubeconfig context built exactly as `--context NAME` would
 * build it, and the one-line report of a context's error.
 */
import type { IO } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import type { ParsedArgs } from './command-types.js';
import { createContext, type Context } from './context.js';
import { reportError } from './report-error.js';
import { parseContextSelector } from '../fleet/select.js';
import { parseNamespaces } from '../fleet/namespaces.js';
import { DEFAULT_CONTEXT_CONCURRENCY } from '../fleet/fanout.js';
import { contextErrorLine } from '../printers/envelopes.js';

export interface FleetRequest {
  /** The contexts selected (one, the current context's `ctx`, when only namespaces are several). */
  contexts: string[];
  /** Whether the output carries the context (any fleet selector, even one that matched one context). */
  showContext: boolean;
  /** `-n a,b`: the namespaces (undefined: each context's own). */
  namespaces?: string[];
  concurrency: number;
  /** The context for one selected kubeconfig context. */
  open(context: string): Context;
  /** Writes one context's error as one stderr line (plain, as kdyn alone would, without a CONTEXT). */
  report(context: string, e: unknown): void;
}

/**
 * The contexts the flags select: a fleet (wantsFleet: several contexts or, with `namespaces`, several
 * namespaces), else a fleet of one, the command's own context (issue 36), whose output is the
 * single-cluster command's. `fleet` tells which: a fleet's output is decorated with the context and
 * a fleet's failed context is one line; one context's error is the command's.
 */
export async function contextsFor(args: ParsedArgs, ctx: Context, o: { namespaces: boolean }): Promise<FleetRequest & { fleet: boolean }> {
  if (wantsFleet(args.flags, o.namespaces)) return { ...(await fleetRequest(args, ctx, o)), fleet: true };
  const report = (_context: string, e: unknown) => reportError(e, 0, ctx.io, args.command, args.prog);
  return { contexts: [str(args.flags.context) ?? ''], showContext: false, concurrency: 1, open: () => ctx, report, fleet: false };
}

/** Whether the flags ask for a fleet: several contexts (`a,b`, a glob, --all-contexts) or several namespaces. */
export function wantsFleet(flags: ParsedArgs['flags'], namespaces = true): boolean {
  const selector = parseContextSelector(str(flags.context), flags['all-contexts'] === true);
  return selector.kind === 'fleet' || (namespaces && (parseNamespaces(flags.namespace)?.length ?? 0) > 1);
}

/** The fleet the flags select; a usage error for `-n a,b` where several namespaces make no sense. */
export async function fleetRequest(args: ParsedArgs, ctx: Context, o: { namespaces: boolean }): Promise<FleetRequest> {
  const f = args.flags;
  const selector = parseContextSelector(str(f.context), f['all-contexts'] === true);
  const namespaces = parseNamespaces(f.namespace);
  if (!o.namespaces && namespaces && namespaces.length > 1) throw new UsageError(`several namespaces (-n ${String(f.namespace)}) are not supported by ${args.command}`);
  if (namespaces && namespaces.length > 1 && f['all-namespaces'] === true) throw new UsageError('-n with several namespaces and -A/--all-namespaces cannot be used together');
  const concurrency = typeof f['context-concurrency'] === 'number' ? f['context-concurrency'] : DEFAULT_CONTEXT_CONCURRENCY;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--context-concurrency" flag: must be at least 1`);
  const verbosity = typeof f.v === 'number' ? f.v : 0;
  const io = ctx.io;
  const report = (context: string, e: unknown) => {
    let line = '';
    const capture: IO = { ...io, stderr: { write: (s: string) => (line += s) } };
    reportError(e, 0, capture, args.command, args.prog);
    io.stderr.write(selector.kind === 'fleet' ? contextErrorLine(context, line) : line);
    if (verbosity >= 9 && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
  };
  if (selector.kind === 'single') {
    // One context, several namespaces: the command's own context.
    return { contexts: [selector.name ?? ''], showContext: false, namespaces, concurrency, open: () => ctx, report };
  }
  const { listContexts } = await import('../fleet/contexts.js');
  const { selectContexts } = await import('../fleet/select.js');
  const available = await listContexts({ kubeconfig: str(f.kubeconfig), env: io.env, cwd: io.cwd });
  const contexts = selectContexts(selector, available.names, available.where);
  const single = namespaces?.length === 1 ? namespaces[0] : undefined;
  return {
    contexts,
    showContext: true,
    namespaces: namespaces && namespaces.length > 1 ? namespaces : undefined,
    concurrency,
    open: (context) =>
      createContext({ flags: { ...f, context, namespace: single, 'all-contexts': false }, explicit: args.explicit }, io, ctx.clock, ctx.logger, {
        discoveryTimeoutMs: ctx.discoveryTimeoutMs,
        warningPrefix: `context ${JSON.stringify(context)}: `,
        merged: available.merged, // read once for every context
      }),
    report,
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
