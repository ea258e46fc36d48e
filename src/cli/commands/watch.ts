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
 *
 * Several contexts or namespaces (issue 24, docs/fleet.md) take the same path (../../fleet/watch.ts:
 * one context is a fleet of one): each event is printed with its context (../watch-output.ts), a
 * context that fails is one stderr line and the others go on (exit 1 at the end), and with --for
 * each context waits for its own objects (exit 1 if any context's were not met).
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import { parseGetArgs } from '../../restmapper/args.js';
import { checkNamesWithSelection } from '../get-flags.js';
import { watchContexts, type ContextWatch } from '../../fleet/watch.js';
import { contextsFor } from '../fleet.js';
import { readWatchOptions, streamOptions, waitForUntil } from '../watch-options.js';
import { createWatchOutput } from '../watch-output.js';
import { nodeHeap, youngGenerationCap, type HeapControl } from '../../startup/young-gen-cap.js';
import { wantsLive } from '../watch-live.js';

const EXIT_FOR_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

export async function run(args: ParsedArgs, ctx: Context, io: IO, mode: 'watch' | 'get' = 'watch', heap: HeapControl = nodeHeap): Promise<number> {
  const opts = await readWatchOptions(args, mode, io);
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  if (mode === 'get' && args.flags['output-watch-events'] === true && args.flags.watch !== true && args.flags['watch-only'] !== true) {
    throw new UsageError('--output-watch-events requires --watch or --watch-only');
  }
  const live = wantsLive(args, opts, mode, io);
  const fleet = await contextsFor(args, ctx, { namespaces: true });
  if (fleet.showContext && opts.resourceVersion !== undefined) throw new UsageError('--resource-version is not supported with several contexts: each cluster has its own resource versions');

  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  let watch: ContextWatch | undefined;
  // On a terminal, a table is the live view (../watch-live.ts, docs/live-view.md): q ends the watch
  // (exit 0), Ctrl-C (a key in raw mode) as SIGINT would.
  const onQuit = (how: 'quit' | 'interrupt') => {
    if (watch?.stop(how === 'quit' ? 'quit' : 'SIGINT') && how === 'interrupt') signal = 'SIGINT';
  };
  const out = await createWatchOutput({ args, ctx, opts, mode, fleet, live, onQuit }, io);
  // Flat memory on long streams (src/startup/young-gen-cap.ts): checked every 1,024 events.
  const capYoungGeneration = youngGenerationCap(heap);
  let received = 0;
  const table = opts.output.format === 'table' || opts.output.format === 'wide';
  watch = watchContexts(fleet.contexts, fleet.open, {
    args: args.args,
    prog: args.prog,
    namespaces: fleet.namespaces,
    allNamespaces: opts.allNamespaces,
    watch: {
      ...streamOptions(opts, mode, table),
      trackGone: opts.waitFor !== undefined,
      clock: ctx.clock,
      logger: ctx.logger,
      onReceive: () => {
        if ((++received & 1023) === 0) capYoungGeneration();
      },
    },
    maxEvents: opts.maxEvents,
    // --for: each context waits for its own objects (all its namespaces), and ends on its own.
    until: waitForUntil(opts),
    checkOnce: opts.checkOnce,
    ...out.hooks,
  });
  const unlisten = io.onSignal?.((sig) => {
    if (watch.stop(sig)) signal = sig;
  });
  let failures: number;
  try {
    failures = (await watch.result).failures;
  } finally {
    unlisten?.();
    out.end();
  }
  if (out.error) throw out.error.error;
  if (signal !== undefined) return EXIT_FOR_SIGNAL[signal];
  return failures + out.unmet > 0 ? 1 : 0;
}
