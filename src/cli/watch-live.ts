/**
 * `kdyn watch --live` (the default for a table on a terminal): when the watch draws the live view
 * (src/live/view.ts) instead of appending rows, and the live printer that feeds it.
 *
 * Live when stdout is a terminal that can move its cursor (TERM set and not `dumb`), the output is
 * a table (`-o wide` included, not with --for) and there is no -v (its logs would draw over it).
 * `--live` insists (a usage error, before any request, where it cannot be), `--no-live` appends as
 * before; `kdyn get -w` always appends, as kubectl. NO_COLOR: no attributes (changes unmarked,
 * deleted rows go at once). The stderr notices of the appending output (an outage and its end, a
 * type gone, a relist from --resource-version) become the header's state and a notice line: nothing
 * is written to stderr while the view is up.
 */
import { writeFileSync } from 'node:fs';
import type { IO } from '../core/io.js';
import type { Clock } from '../core/clock.js';
import { UsageError, oneLine } from '../core/errors.js';
import type { Table } from '../core/table.js';
import { LiveView } from '../live/view.js';
import { LEAVE } from '../live/ansi.js';
import type { MultiWatchEvent, MultiWatchOptions, MultiWatchSource } from '../watch/multi.js';
import type { ParsedArgs } from './spec.js';
import { wantsFleet } from './fleet.js';
import type { WatchOptions } from './watch-options.js';
import type { EventPrinter } from '../printers/index.js';
import { createSorter } from '../printers/sort.js';

/** Whether this watch draws the live view (throws the usage error of a `--live` that cannot be). */
export function wantsLive(args: Pick<ParsedArgs, 'flags'>, opts: WatchOptions, mode: 'watch' | 'get', io: IO): boolean {
  const f = args.flags;
  if (f.live === true && f['no-live'] === true) throw new UsageError('--live and --no-live cannot be used together');
  const format = opts.output.format;
  const table = (format === 'table' || format === 'wide') && !opts.waitFor;
  const cursor = io.env.TERM !== undefined && io.env.TERM !== '' && io.env.TERM !== 'dumb';
  const sortBy = opts.sortBy !== undefined;
  // get -w: kubectl's output, its flags as before (its --sort-by is get's).
  if (mode === 'get') return false;
  // Several contexts or namespaces (issue 24): the appending output, with its CONTEXT column.
  if (wantsFleet(f)) {
    if (f.live === true) throw new UsageError('--live shows one context and namespace: not with several (--context a,b, --all-contexts, -n a,b)');
    if (sortBy) throw new UsageError('--sort-by sorts the live view only, which shows one context and namespace');
    return false;
  }
  if (f['no-live'] === true) {
    if (sortBy) throw new UsageError('--sort-by sorts the live view only (not with --no-live)');
    return false;
  }
  if (f.live === true) {
    if (!table) throw new UsageError(opts.waitFor ? '--live cannot be used with --for' : `--live shows a table: it cannot be used with -o ${format === 'template' ? 'jsonpath/go-template' : format}`);
    if (!io.stdoutIsTTY || !io.openScreen) throw new UsageError('--live needs a terminal on stdout');
    if (!cursor) throw new UsageError(`--live needs a terminal that can move its cursor (TERM is ${io.env.TERM ? 'dumb' : 'not set'})`);
    return true;
  }
  // -v logs go to stderr, over the view: with -v the default is to append.
  const quiet = !(typeof f.v === 'number' && f.v > 0);
  const live = table && io.stdoutIsTTY === true && cursor && quiet && io.openScreen !== undefined;
  if (sortBy && !live) throw new UsageError('--sort-by sorts the live view only (a table on a terminal, or --live)');
  return live;
}

/** The watch's printer in live mode: events and notices to the view; `end()` gives the terminal back. */
export interface LivePrinter extends EventPrinter {
  /** The MultiWatch hooks that also feed the view's header (relisting, listed, a type gone). */
  hooks: Pick<MultiWatchOptions, 'onRelist' | 'onListed' | 'onGone'>;
}

export interface LiveSetup {
  /** What is watched, in the MultiWatch's order (the labels of connection states). */
  targets: readonly { type: string }[];
  /** A MultiWatch source's index (called only once the watch runs). */
  indexOf: (source: MultiWatchSource) => number;
  opts: WatchOptions;
  withNamespace: boolean;
  withKind: boolean;
  context?: string;
  clock: Clock;
  /** `q` (quit) or Ctrl-C (interrupt). */
  onQuit: (how: 'quit' | 'interrupt') => void;
}

export async function createLivePrinter(s: LiveSetup, io: IO): Promise<LivePrinter> {
  const sorter = s.opts.sortBy ? createSorter(s.opts.sortBy) : undefined;
  const screen = await io.openScreen!(LEAVE);
  const view = new LiveView({
    screen,
    clock: s.clock,
    context: s.context,
    sources: s.targets.map((x) => x.type),
    onQuit: s.onQuit,
    wide: s.opts.output.format === 'wide',
    withNamespace: s.withNamespace,
    withKind: s.withKind,
    noHeaders: s.opts.output.noHeaders,
    sorter,
    styles: io.env.NO_COLOR === undefined || io.env.NO_COLOR === '',
  });
  // A source's events before its first list completed are its initial list (not marked as changes);
  // from --resource-version there is none.
  const listed = s.targets.map(() => s.opts.resourceVersion !== undefined);
  const indexOf = s.indexOf;
  view.start();
  listed.forEach((l, i) => l && view.listed(i));
  return {
    hooks: {
      onRelist: (r, src) => {
        view.relist(indexOf(src));
        if (!src.listed) view.notice(`${src.type}: resourceVersion ${r.resourceVersion} has expired; relisting`);
      },
      onListed: (src) => {
        listed[indexOf(src)] = true;
        view.listed(indexOf(src));
      },
      onGone: (src, e) => view.gone(indexOf(src), `the resource type is no longer served (${oneLine(e.status.message ?? e.message)})`),
    },
    event: (events) => {
      for (const ev of events as readonly MultiWatchEvent[]) view.apply([{ type: ev.type, object: ev.object as Table, gk: ev.gk }], !listed[ev.source]);
    },
    // A failed attempt and the answer again: the header's state, where the appending output writes stderr lines.
    retry: (src, r) => view.retry(indexOf(src as MultiWatchSource), r),
    resume: (src) => view.resume(indexOf(src as MultiWatchSource)),
    text: (text) => view.notice(text.trim()),
    notice: (text) => view.notice(text.trim()),
    end: () => {
      view.close();
      // Testing hook (docs/configuration.md, "Testing hooks"): the view's frame statistics, for the benchmark.
      const stats = io.env.KDYN_TEST_LIVE_STATS;
      if (stats) writeFileSync(stats, JSON.stringify(view.stats));
    },
  };
}
