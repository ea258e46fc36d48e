/**
 * `kdyn apply`: server-side apply of manifests (src/apply does the work). Reads and checks every
 * `-f` source before any connection is made, then applies in stages and prints one line per object
 * in input order (`kind.group/name serverside-applied`, `unchanged`, kubectl's ` (server dry run)`),
 * or the objects (`-o name|json|yaml|jsonl`). Failures go to stderr one line each, then a summary;
 * exit 1 if any object failed, 130 after SIGINT and 143 after SIGTERM (no new request starts, the
 * ones in flight finish, the summary says what was done).
 */
import type { IO } from '../../core/io.js';
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import { createPrinter, type ApplyPrinter } from '../../printers/index.js';
import { decodeSources, noObjectsError, readSources, readStream } from '../../apply/sources.js';
import { ManifestError, type Manifest } from '../../apply/manifests.js';
import { planRequests } from '../../apply/requests.js';
import { applyManifests, type ApplyOptions, type ApplyReport, type ApplyResult } from '../../apply/apply.js';
import { failureReason } from '../../apply/conflict.js';
import { clientDryRunSummary, failureLine, objectRef, summaryLine, waitForApplied } from '../../apply/report.js';
import { wantsFleet } from '../fleet.js';
import { readOptions, type ApplyCommandOptions } from '../apply-options.js';
import type { ApplySetReport } from '../../applyset/run.js';

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
  // Several contexts (issue 24): ../../fleet/apply.ts.
  if (wantsFleet(args.flags, false)) return (await import('./apply-fleet.js')).runFleet(args, ctx, io, opts, manifests);

  const applyOpts: ApplyOptions = {
    fieldManager: opts.fieldManager,
    force: opts.force,
    dryRun: opts.dryRun === 'server',
    fieldValidation: opts.validation,
    concurrency: opts.concurrency,
    namespace: await ctx.namespace(),
    enforceNamespace: ctx.explicit.has('namespace'),
  };
  if (opts.dryRun === 'client') return clientDryRun(manifests, ctx, io, opts, applyOpts);

  await ctx.preconnect();
  const [mapper, client, discovery] = await Promise.all([ctx.mapper(), ctx.dynamic(), ctx.discovery()]);
  // SIGINT/SIGTERM (until the summary): no new request starts, the ones in flight finish.
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  try {
    const printer = await createPrinter(opts.output, { serverDryRun: opts.dryRun === 'server', clientDryRun: false }, io);
    // A CRD or APIService written invalidates discovery for the next kdyn and kubectl runs (written at ctx.flush()).
    const deps = { client, mapper, discovery, clock: ctx.clock };
    const run: ApplyOptions = {
      ...applyOpts,
      signal: stop.signal,
      detectUnchanged: opts.output.format === 'text',
      establishTimeoutMs: opts.timeoutGiven ? opts.timeoutMs : undefined,
      onResult: (r) => printResult(r, printer, io),
    };
    // --prune --applyset (issue 37): the same apply within its ApplySet (../apply-set.ts).
    let set: { report: ApplyReport; set?: ApplySetReport; failed: number };
    if (opts.applySet) {
      const { applyWithSet, ioOutput } = await import('../apply-set.js');
      set = await applyWithSet(manifests, deps, run, opts, ioOutput(io));
    } else set = { report: await applyManifests(manifests, deps, run), failed: 0 };
    const report = set.report;
    printer.end();
    let failed = report.failed + report.unknown + set.failed;
    let ready: number | undefined;
    if (opts.wait && !report.interrupted && opts.dryRun === 'none') {
      const waited = await waitForApplied(report, client, { clock: ctx.clock, timeoutMs: opts.timeoutMs, signal: stop.signal });
      for (const line of waited.errors) io.stderr.write(line);
      ready = waited.ready;
      failed += waited.errors.length;
    }
    io.stderr.write(summaryLine(report, { serverDryRun: opts.dryRun === 'server', ready, interrupted: stop.signal.aborted }) + '\n');
    if (set.set) io.stderr.write((await import('../apply-set.js')).setSummary(set.set, opts.dryRun) + '\n');
    if (signalled) return signalled === 'SIGINT' ? 130 : 143;
    return failed > 0 ? 1 : 0;
  } finally {
    unregister?.();
  }
}

/** One result as it comes: a failure on stderr, an applied object to the printer. */
function printResult(r: ApplyResult, printer: ApplyPrinter, io: IO): void {
  if (r.status === 'failed' || r.status === 'unknown') io.stderr.write(failureLine(r) + '\n');
  else if (r.status !== 'skipped' && r.object) printer.page([{ ref: objectRef(r), unchanged: r.status === 'unchanged', object: r.object }]);
}

/** --dry-run=client: the requests that would be sent, printed; nothing is sent. */
async function clientDryRun(manifests: Manifest[], ctx: Context, io: IO, opts: ApplyCommandOptions, applyOpts: ApplyOptions): Promise<number> {
  // With --applyset: the requests carry the part-of label; what would be pruned follows as `# kind/name pruned (dry run)`.
  let pruned = '';
  let setFailed = 0;
  if (opts.applySet) {
    const { applyWithSet } = await import('../apply-set.js');
    const r = await applyWithSet(manifests, { client: await ctx.dynamic(), mapper: await ctx.mapper() }, applyOpts, opts, { prefix: opts.output.format === 'text' ? '# ' : '', out: (l) => (pruned += l), err: (l) => io.stderr.write(l), note: (l) => io.stderr.write(l) });
    manifests = r.set.manifests;
    setFailed = r.failed;
  }
  const { requests, errors } = await planRequests(manifests, { mapper: await ctx.mapper() }, applyOpts);
  const printer = await createPrinter(opts.output, { serverDryRun: false, clientDryRun: true }, io);
  printer.page(requests.map((r) => ({ ref: objectRef({ manifest: r.manifest, sent: r.body }), unchanged: false, object: r.body, request: r })));
  printer.end();
  io.stdout.write(pruned);
  for (const e of errors) io.stderr.write(`error: ${failureReason(e.error)}\n`);
  io.stderr.write(`${clientDryRunSummary(manifests.length, requests.length, errors.length)}\n`);
  return errors.length + setFailed ? 1 : 0;
}
