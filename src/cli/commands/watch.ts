/**
 * `kdyn watch TYPE[,TYPE...] [NAME]`, and `kdyn get -w|--watch-only [--output-watch-events]` (which
 * prints what kubectl prints). Each resource (and each name) gets its own Reflector-style watcher
 * (../../watch/watcher.ts): the stream resumes, relists on 410 and never ends on its own. Events of
 * all watchers are printed as they arrive (../../printers/watch.ts); a table prints each type's
 * initial list as one block, as kubectl does.
 *
 * Ends: `--timeout` (exit 0; with --for, 1 and the last state; --for's default is kubectl wait's
 * 30 s, 0 checks once), `--max-events N` (0), every `--for` satisfied (0), for `get -w` the end of a
 * watch request bounded by --request-timeout (0, as kubectl; `kdyn watch` resumes after each such
 * request instead), SIGINT (130) or SIGTERM (143) after flushing the output (kubectl v1.32 exits 1 on
 * both; 128+signal lets a script tell an interrupt from a failure), a closed stdout (0, quietly:
 * src/startup/stdio.ts). An error that stops a watcher (401, 403, a bad selector) exits 1 after the
 * output so far. A type that goes away (its CRD deleted: 404 once it had been listed) ends its own
 * stream after the DELETED events, with one stderr line; the other types go on, and when none is
 * left the watch exits 0, as kubectl get -w after the DELETED rows (1 with an unmet --for).
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import { parseGetArgs, resolveGetArgs } from '../../restmapper/args.js';
import { checkNamesWithSelection } from '../get-flags.js';
import { MultiWatch } from '../../watch/multi.js';
import { watchTargets } from '../../fleet/watch.js';
import { wantsFleet } from '../fleet.js';
import { createPrinter } from '../../printers/index.js';
import { goneNotice, relistNotice } from '../../printers/watch-notices.js';
import { readWatchOptions, streamOptions, waitForEnd, waitForUntil } from '../watch-options.js';
import { nodeHeap, youngGenerationCap, type HeapControl } from '../../startup/young-gen-cap.js';
import { createLivePrinter, namespacesLabel, wantsLive, type LivePrinter } from '../watch-live.js';

const EXIT_FOR_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

export async function run(args: ParsedArgs, ctx: Context, io: IO, mode: 'watch' | 'get' = 'watch', heap: HeapControl = nodeHeap): Promise<number> {
  const opts = await readWatchOptions(args, mode, io);
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  if (mode === 'get' && args.flags['output-watch-events'] === true && args.flags.watch !== true && args.flags['watch-only'] !== true) {
    throw new UsageError('--output-watch-events requires --watch or --watch-only');
  }
  const liveView = wantsLive(args, opts, mode, io);

  // Several contexts or namespaces (issue 24): ../../fleet/watch.ts.
  if (wantsFleet(args.flags)) return (await import('./watch-fleet.js')).runFleet(args, ctx, io, opts, mode, liveView);

  await ctx.preconnect();
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  const [plan, namespace] = await Promise.all([resolveGetArgs(args.args, mapper, args.prog), opts.allNamespaces ? undefined : ctx.namespace()]);
  const targets = watchTargets(plan, client, [namespace]);

  const table = opts.output.format === 'table' || opts.output.format === 'wide';
  const withNamespace = opts.allNamespaces && plan.requests.some((r) => r.mapping.namespaced);
  const withKind = new Set(targets.map((s) => `${s.gk.kind}.${s.gk.group}`)).size > 1;
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  // On a terminal, a table is the live view (../watch-live.ts, docs/live-view.md): q ends the watch
  // (exit 0), Ctrl-C (a key in raw mode) as SIGINT would.
  const onQuit = (how: 'quit' | 'interrupt') => {
    if (multi.stop(how === 'quit' ? 'quit' : 'SIGINT') && how === 'interrupt') signal = 'SIGINT';
  };
  const live: LivePrinter | undefined = liveView
    ? await createLivePrinter({
        targets,
        indexOf: (s) => multi.sources.indexOf(s),
        opts,
        withNamespace,
        withKind,
        context: (await ctx.restConfig()).contextName,
        namespaces: plan.requests.some((r) => r.mapping.namespaced) ? namespacesLabel(opts.allNamespaces, namespace === undefined ? undefined : [namespace]) : undefined,
        clock: ctx.clock,
        onQuit,
      }, io)
    : undefined;
  const printer = live ?? await createPrinter(opts.output, {
    events: opts.events,
    withNamespace,
    withKind,
    keepManagedFields: opts.output.showManagedFields || (mode === 'get' && opts.events && (opts.output.format === 'json' || opts.output.format === 'yaml')),
    quiet: opts.waitFor !== undefined && !opts.output.explicit,
    verbose: ctx.logger.enabled(1),
  }, io);
  // Flat memory on long streams (src/startup/young-gen-cap.ts): checked every 1,024 events.
  const capYoungGeneration = youngGenerationCap(heap);
  let received = 0;
  const gone = new Set<string>();
  const multi: MultiWatch = new MultiWatch(targets, {
    ...streamOptions(opts, mode, table),
    maxEvents: opts.maxEvents,
    until: waitForUntil(opts),
    checkOnce: opts.checkOnce,
    trackGone: opts.waitFor !== undefined,
    clock: ctx.clock,
    logger: ctx.logger,
    onReceive: () => {
      if ((++received & 1023) === 0) capYoungGeneration();
    },
    onRetry: (r, s) => printer.retry(s, r),
    onResume: (r, s) => printer.resume(s, r),
    // A 410 before any list (a watch from --resource-version): the relist prints every object as
    // ADDED, which a script asking for the changes since RV could not tell from creations. (After
    // a list, a relist prints only the differences: nothing to say.)
    onRelist: (r, s) => {
      if (!s.listed) printer.notice(relistNotice(s.type, r.resourceVersion, r.error, opts.resourceVersion));
    },
    onGone: (s, e) => {
      if (gone.has(s.type)) return;
      gone.add(s.type);
      printer.notice(goneNotice(s.type, e));
    },
    // The live view keeps the state of each watch in its header.
    ...live?.hooks,
  });
  const unlisten = io.onSignal?.((sig) => {
    if (multi.stop(sig)) signal = sig;
  });

  const result = await multi.run((events) => printer.event(events));
  unlisten?.();

  let code = 0;
  if (opts.waitFor) {
    const end = waitForEnd(opts, result);
    if (end.stdout) printer.text(end.stdout);
    if (end.stderr) printer.notice(end.stderr);
    if (!end.met) code = 1;
  }
  printer.end();
  if (result.error !== undefined) throw result.error;
  if (signal !== undefined && result.reason === signal) return EXIT_FOR_SIGNAL[signal];
  return code;
}
