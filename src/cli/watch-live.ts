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
 *
 * Several contexts (issue 24, `--context a,b`, globs, `--all-contexts`): one view, a CONTEXT column
 * first, rows keyed by context, namespace and name, and the header's state per context; a context
 * whose watch fails shows `failed` there, its error written once the terminal is back. Several
 * namespaces (`-n a,b`): one view with a NAMESPACE column.
 */
import { writeFileSync } from 'node:fs';
import type { IO } from '../core/io.js';
import type { Clock } from '../core/clock.js';
import { UsageError, oneLine } from '../core/errors.js';
import type { Table } from '../core/table.js';
import { LiveView } from '../live/view.js';
import { LEAVE } from '../live/ansi.js';
import type { MultiWatchEvent, MultiWatchSource } from '../watch/multi.js';
import type { ContextWatchHooks } from '../fleet/watch.js';
import type { ParsedArgs } from './command-types.js';
import type { WatchOptions } from './watch-options.js';
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

/** What the view shows: its options, and the contexts (several: each stated in the header) or the one context. */
export interface LiveSetup {
  opts: WatchOptions;
  withNamespace: boolean;
  withKind: boolean;
  /** The one context's name (the header's), when the contexts are not shown. */
  context?: string;
  /** The header's namespaces (namespacesLabel). */
  namespaces?: string;
  clock: Clock;
  /** `q` (quit) or Ctrl-C (interrupt). */
  onQuit: (how: 'quit' | 'interrupt') => void;
  /** The contexts, each with its state in the header (with `showContext`; else `context` names the one). */
  contexts: readonly string[];
  showContext: boolean;
  /** One context's sources, known when the view opens (a fleet's come as each context's watch starts). */
  sources?: readonly MultiWatchSource[];
}

type ViewSetup = Omit<LiveSetup, 'contexts' | 'showContext' | 'sources'> & { sources: readonly string[]; contexts?: readonly string[] };

async function openView(s: ViewSetup, io: IO): Promise<LiveView> {
  return new LiveView({
    screen: await io.openScreen!(LEAVE),
    clock: s.clock,
    context: s.context,
    namespaces: s.namespaces,
    sources: s.sources,
    contexts: s.contexts,
    onQuit: s.onQuit,
    wide: s.opts.output.format === 'wide',
    withContext: s.contexts !== undefined,
    withNamespace: s.withNamespace,
    withKind: s.withKind,
    noHeaders: s.opts.output.noHeaders,
    sorter: s.opts.sortBy ? createSorter(s.opts.sortBy) : undefined,
    styles: io.env.NO_COLOR === undefined || io.env.NO_COLOR === '',
  });
}

/**
 * The header's namespaces: `all namespaces` (-A), `namespace demo`, `namespaces a, b`, or each
 * context's own (a fleet without -n).
 */
export function namespacesLabel(allNamespaces: boolean, namespaces: readonly string[] | undefined): string {
  if (allNamespaces) return 'all namespaces';
  if (!namespaces || namespaces.length === 0) return "each context's namespace";
  return namespaces.length === 1 ? `namespace ${namespaces[0]}` : `namespaces ${namespaces.join(', ')}`;
}

/** Testing hook (README "Testing hooks"): the view's frame statistics, for the benchmark. */
function closeView(view: LiveView, io: IO): void {
  view.close();
  // Testing hook (docs/configuration.md, "Testing hooks"): the view's frame statistics, for the benchmark.
  const stats = io.env.KDYN_TEST_LIVE_STATS;
  if (stats) writeFileSync(stats, JSON.stringify(view.stats));
}

/**
 * The live view of a watch over contexts (../fleet/watch.ts): its hooks, its events, its failed
 * contexts. One context's view opens once its sources are known (`sources`), each stated in the
 * header from the start, and says when a relist from --resource-version prints every object.
 */
export interface LivePrinter {
  hooks: Required<ContextWatchHooks>;
  events(context: string | undefined, events: readonly MultiWatchEvent[], sources: readonly MultiWatchSource[]): void;
  /** A context whose watch failed: `failed` in the header; `report` once the terminal is back. */
  failed(context: string, error: unknown): void;
  /** Gives the terminal back, then reports the failed contexts. */
  end(report: (context: string, error: unknown) => void): void;
}

export async function createLivePrinter(s: LiveSetup, io: IO): Promise<LivePrinter> {
  const known = s.sources ?? [];
  const view = await openView({ ...s, sources: known.map((x) => x.type), contexts: s.showContext ? s.contexts : undefined, context: s.showContext ? undefined : s.context }, io);
  // Each context's sources get an index in the header's states when first heard of.
  const indexes = new Map<MultiWatchSource, number>(known.map((src, i) => [src, i]));
  const listed = new Set<MultiWatchSource>();
  const failures: Array<[string, unknown]> = [];
  const index = (context: string, src: MultiWatchSource): number => {
    let i = indexes.get(src);
    if (i === undefined) indexes.set(src, (i = view.addSource(src.type, context)));
    return i;
  };
  // From --resource-version there is no initial list: the events are changes at once.
  const fromRV = s.opts.resourceVersion !== undefined;
  view.start();
  if (fromRV) known.forEach((_, i) => view.listed(i));
  return {
    hooks: {
      onRetry: (c, r, src) => view.retry(index(c, src), r),
      onResume: (c, _r, src) => view.resume(index(c, src)),
      onRelist: (c, r, src) => {
        view.relist(index(c, src));
        if (s.sources && !src.listed) view.notice(`${src.type}: resourceVersion ${r.resourceVersion} has expired; relisting`);
      },
      onListed: (c, src) => {
        listed.add(src);
        view.listed(index(c, src));
      },
      onGone: (c, src, e) => view.gone(index(c, src), `the resource type is no longer served (${oneLine(e.status.message ?? e.message)})`),
    },
    events: (context, events, sources) => {
      // A source's events before its first list completed are its initial list (not marked).
      for (const ev of events) view.apply([{ type: ev.type, object: ev.object as Table, gk: ev.gk, context }], !fromRV && !listed.has(sources[ev.source]!));
    },
    failed: (context, e) => {
      failures.push([context, e]);
      view.failed(context, oneLine(e instanceof Error ? e.message : String(e)));
    },
    end: (report) => {
      closeView(view, io);
      for (const [c, e] of failures) report(c, e);
    },
  };
}
