/**
 * `kdyn apply`: server-side apply of manifests (src/apply does the work) to one context, or to
 * several (`--context a,b`, a glob, `--all-contexts`: docs/fleet.md), through one path
 * (../../fleet/apply.ts). Reads and checks every `-f` source before any connection is made, then
 * applies in stages. One context prints one line per object in input order as it comes (`kind.group/name
 * serverside-applied`, `unchanged`, kubectl's ` (server dry run)`), or the objects (`-o
 * name|json|yaml|jsonl`); failures go to stderr one line each, then a summary. A fleet prints each
 * context's objects, failures and summary together, in the contexts' order, each naming its context
 * (../../printers/context-apply.ts). `--dry-run=client` prints the requests instead. Exit 1 if any
 * object or context failed, 130 after SIGINT and 143 after SIGTERM (no new request starts, the ones
 * in flight finish, the summary says what was done).
 */
import type { IO } from '../../core/io.js';
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import { decodeSources, noObjectsError, readSources, readStream } from '../../apply/sources.js';
import { ManifestError } from '../../apply/manifests.js';
import { applyContexts, planContexts } from '../../fleet/apply.js';
import type { ContextResult } from '../../fleet/fanout.js';
import { createContextApplyPrinter } from '../../printers/context-apply.js';
import { contextsFor } from '../fleet.js';
import { readOptions } from '../apply-options.js';
import { printPlan, printReport, printResult } from '../apply-report.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  try {
    return await runApply(args, ctx, io);
  } catch (e) {
    // Bad input: one line per problem, nothing was sent.
    if (!(e instanceof ManifestError)) throw e;
    for (const p of e.problems) io.stderr.write(`error: ${p}\n`);
    return 1;
  }
}

async function runApply(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const opts = readOptions(args.flags, args.explicit);
  // Everything is read and decoded before the first request: bad input sends nothing.
  const sources = await readSources(opts.files, { cwd: io.cwd, recursive: opts.recursive, stdin: () => readStream(io.stdin) });
  const manifests = decodeSources(sources);
  if (manifests.length === 0) throw noObjectsError(sources);
  const fleet = await contextsFor(args, ctx, { namespaces: false });
  const serverDryRun = opts.dryRun === 'server';
  const out = await createContextApplyPrinter(opts.output, { serverDryRun, clientDryRun: opts.dryRun === 'client' }, fleet.showContext, io);
  // SIGINT/SIGTERM (until the summary): no new request starts, the ones in flight finish.
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  let failed = false;
  let error: { error: unknown } | undefined;
  /** A context's result: its output, or (down, unmappable input) its error: a fleet's one line, one context's the command's. */
  const each = <T>(print: (context: string, value: T) => boolean) => (r: ContextResult<T>) => {
    if (r.ok) {
      failed = print(r.context, r.value) || failed;
      return;
    }
    failed = true;
    if (fleet.fleet) fleet.report(r.context, r.error);
    else error ??= { error: r.error };
  };
  const common = {
    apply: {
      fieldManager: opts.fieldManager,
      force: opts.force,
      dryRun: serverDryRun,
      fieldValidation: opts.validation,
      concurrency: opts.concurrency,
      enforceNamespace: ctx.explicit.has('namespace'),
      detectUnchanged: opts.output.format === 'text',
      establishTimeoutMs: opts.timeoutGiven ? opts.timeoutMs : undefined,
    },
    concurrency: fleet.concurrency,
    signal: stop.signal,
    clock: ctx.clock,
  };
  try {
    if (opts.dryRun === 'client') {
      await planContexts(fleet.contexts, fleet.open, manifests, { ...common, onContext: each((context, plan) => printPlan(out, context, plan, manifests.length)) });
    } else {
      // One context prints each object as it comes; a fleet, each context's together, in the contexts' order.
      const streamed = !fleet.showContext;
      await applyContexts(fleet.contexts, fleet.open, manifests, {
        ...common,
        wait: opts.wait ? { timeoutMs: opts.timeoutMs } : undefined,
        onResult: streamed ? (context, r) => printResult(out, context, r) : undefined,
        onContext: each((context, applied) => printReport(out, context, applied, { streamed, serverDryRun })),
      });
    }
  } finally {
    unregister?.();
  }
  if (error) throw error.error;
  if (signalled) return signalled === 'SIGINT' ? 130 : 143;
  return failed ? 1 : 0;
}
