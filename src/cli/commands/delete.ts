/**
 * `kdyn delete` (kubectl delete): flags (../delete-options.ts) -> ../../delete/delete.ts over the
 * selected contexts (one, or a fleet with --context a,b / --all-contexts) -> lines. One context:
 * kubectl's output byte for byte (`configmap "x" deleted`, `-o name`, `No resources found`, the
 * errors after the deletions). Several: each stdout line starts with `CONTEXT/`, warnings and
 * errors name their context, a failed context is one error line. Exit 1 on any error, 130/143 after
 * SIGINT/SIGTERM (no new DELETE starts).
 */
import type { IO } from '../../core/io.js';
import { KdynError, StatusError } from '../../core/errors.js';
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import { ManifestError, type Manifest } from '../../apply/manifests.js';
import { decodeSources, readSources, readStream } from '../../apply/sources.js';
import { deleteResources, type DeleteEvent } from '../../delete/delete.js';
import { deletedLine } from '../../delete/report.js';
import { contextErrorLine } from '../../printers/envelopes.js';
import { fleetRequest } from '../fleet.js';
import { readDeleteOptions } from '../delete-options.js';
import { reportError } from '../report-error.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const opts = readDeleteOptions(args);
  let manifests: Manifest[] | undefined;
  if (opts.files.length > 0) {
    try {
      const sources = await readSources(opts.files, { cwd: io.cwd, recursive: opts.recursive, stdin: () => readStream(io.stdin) });
      manifests = decodeSources(sources);
    } catch (e) {
      // Bad input: one line per problem, nothing was sent.
      if (!(e instanceof ManifestError)) throw e;
      for (const p of e.problems) io.stderr.write(`error: ${p}\n`);
      return 1;
    }
  }
  const fleet = await fleetRequest(args, ctx, { namespaces: false });
  for (const w of opts.warnings) io.stderr.write(`${w}\n`);
  const namespace = args.explicit.has('namespace') && !fleet.showContext ? await ctx.namespace() : undefined;
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  const verbosity = typeof args.flags.v === 'number' ? args.flags.v : 0;
  const show = fleet.showContext;
  let failed = false;
  let nothing = 0;
  /** One context's errors, held until its end: kubectl prints several without `error: ` (an aggregate). */
  let held: unknown[] = [];
  const print = (ev: DeleteEvent) => {
    switch (ev.type) {
      case 'deleted': {
        const line = deletedLine(ev.target, { dryRun: ev.dryRun, force: ev.force, output: opts.output });
        io.stdout.write(show ? `${ev.context}/${line}\n` : `${line}\n`);
        return;
      }
      case 'warning':
        io.stderr.write(show ? `Warning: context ${JSON.stringify(ev.context)}: ${ev.message}\n` : `Warning: ${ev.message}\n`);
        return;
      case 'error':
        held.push(ev.error);
        return;
      case 'none':
        if (show) nothing++;
        else io.stdout.write('No resources found\n');
        return;
      case 'failed':
        failed = true;
        fleet.report(ev.context, ev.error);
        return;
      case 'done':
        for (const e of held) io.stderr.write(errorLine(e, held.length > 1, ev.context));
        failed ||= held.length > 0;
        held = [];
        return;
    }
  };
  const errorLine = (e: unknown, aggregate: boolean, context: string): string => {
    let line = '';
    const capture: IO = { ...io, stderr: { write: (s: string) => (line += s) } };
    reportError(e, verbosity, capture, 'delete', args.prog);
    // kubectl prints an aggregate's errors as they are: `Error from server ...`, or the message alone.
    if (aggregate && !(e instanceof StatusError) && e instanceof KdynError) line = line.replace(/^error: /, '');
    return show ? contextErrorLine(context, line) : line;
  };
  try {
    const selection = { ...opts.selection, manifests, namespace };
    const events = deleteResources(fleet.contexts, fleet.open, selection, { ...opts.options, contextConcurrency: fleet.concurrency, signal: stop.signal, clock: ctx.clock });
    for await (const ev of events) print(ev);
  } finally {
    unregister?.();
  }
  if (show && nothing === fleet.contexts.length && !failed) io.stdout.write('No resources found\n');
  if (signalled) return signalled === 'SIGINT' ? 130 : 143;
  return failed ? 1 : 0;
}
