/**
 * `kdyn get` (kubectl `KC/pkg/cmd/get/get.go`) over one or more contexts: one context is a fleet of
 * one. Flags → the fetch path (../../fleet/get.ts: the arguments resolved through each context's
 * RESTMapper, then per resource either the server's Table (default and `-o wide`) or the objects,
 * page by page) → the printer (../../printers/context.ts, which adds the context where there are
 * several, or a fleet selector). Errors: one context without a fleet selector reports them as
 * kubectl does, after the output; over a fleet, one stderr line per error naming its context, after
 * that context's output, and exit 1. (`get -w` runs ./get-watch.ts instead: ../command-runs.ts.)
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { parseGetArgs } from '../../restmapper/args.js';
import { visitGet, type FetchGetOptions } from '../../fleet/get.js';
import { createPrinter, prepareOutput, tableRequest } from '../../printers/index.js';
import { reportError } from '../report-error.js';
import { fleetRequest, wantsFleet } from '../fleet.js';
import { checkNamesWithSelection } from '../get-flags.js';
import { readOptions } from '../get-options.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const opts = readOptions(args.flags);
  // Argument and flag errors before any kubeconfig or network work.
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  // Several contexts or namespaces (issue 24): which, and how a context's error is reported.
  const fleet = wantsFleet(args.flags) ? await fleetRequest(args, ctx, { namespaces: true }) : undefined;
  // A --sort-by path or an -o template that does not parse is a usage error, found before any request.
  const output = await prepareOutput(opts.output, io);

  const errors: unknown[] = [];
  const printer = await createPrinter(output, { showContext: fleet?.showContext ?? false, severalNamespaces: (fleet?.namespaces?.length ?? 0) > 1, ignoreNotFound: opts.ignoreNotFound, allNamespaces: opts.allNamespaces, errors }, io);
  const fetch: FetchGetOptions = {
    ...opts,
    args: args.args,
    prog: args.prog,
    namespaces: fleet?.namespaces,
    table: tableRequest(output),
    concurrency: fleet?.concurrency,
    // The command's own context is flushed and closed by main, after the output.
    close: async (m) => {
      if (m === ctx) return;
      await m.flush?.();
      m.close();
    },
  };
  let lost: { error: unknown } | undefined;
  await visitGet(fleet?.contexts ?? [''], fleet?.open ?? (() => ctx), fetch, {
    start: (context, plan) => printer.start(context, plan),
    page: (context, page, resource) => printer.page(context, page, resource),
    done: (context, fetched) => printer.done(context, fetched.failed),
    settled(r) {
      if (!r.ok) {
        if (!fleet) lost = r; // one context: an error before its requests is the command's, as kubectl's
        else report(r.context, [r.error]);
        return;
      }
      const printing = printer.settle(r.context, r.value.failed);
      report(r.context, r.value.failed ? r.value.errors : [...r.value.errors, ...printing]);
    },
  });
  if (lost) throw lost.error;
  printer.end();
  if (fleet) return errors.length > 0 ? 1 : 0;

  let code = 0;
  const verbosity = typeof args.flags.v === 'number' ? args.flags.v : 0;
  for (const e of errors) code = Math.max(code, reportError(e, verbosity, io, 'get', args.prog));
  return code;

  /** Over a fleet, each error now, after its context's output; for one context, after the whole output. */
  function report(context: string, es: unknown[]): void {
    errors.push(...es);
    if (fleet) for (const e of es) fleet.report(context, e);
  }
}
