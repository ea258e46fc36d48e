/**
 * `kdyn watch` (and `get -w`) over several contexts or namespaces: flags -> ../../fleet/watch.ts ->
 * the watch printer, each event marked with its context (../../fleet/output.ts): tables get a
 * CONTEXT column (after EVENT), `-o name` a `CONTEXT/` prefix, and jsonl/json/yaml/templates the
 * event as `{"context":C,"type":T,"object":O}`. Notices name the context (`watch of east/pods`).
 * A context that fails is one stderr line and the others go on; exit 1 at the end if any failed.
 * On a terminal, a table is the live view (../watch-live.ts): one table, CONTEXT first. With --for,
 * each context waits until its own objects meet the conditions (or its --timeout): exit 0 when every
 * context met them, 1 with one line per object of a context that timed out.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import type { Table } from '../../core/table.js';
import type { Unstructured } from '../../core/unstructured.js';
import { createPrinter } from '../../printers/index.js';
import type { PrintedEvent } from '../../printers/watch.js';
import { objectName } from '../../printers/name.js';
import { goJSON } from '../../printers/json.js';
import { goneNotice } from '../../printers/watch-notices.js';
import { fleetRequest } from '../fleet.js';
import { fleetWatch } from '../../fleet/watch.js';
import { contextErrorLine, jsonlEvent, prefixLines, withLeadingColumns } from '../../printers/envelopes.js';
import { streamOptions, waitForEnd, waitForUntil, type WatchOptions } from '../watch-options.js';
import type { FleetWatchOptions } from '../../fleet/watch.js';
import { createFleetLivePrinter, namespacesLabel } from '../watch-live.js';
import { parseNamespaces } from '../../fleet/namespaces.js';

const EXIT_FOR_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

export async function runFleet(args: ParsedArgs, ctx: Context, io: IO, opts: WatchOptions, mode: 'watch' | 'get', live = false): Promise<number> {
  const fleet = await fleetRequest(args, ctx, { namespaces: true });
  if (fleet.showContext && opts.resourceVersion !== undefined) throw new UsageError('--resource-version is not supported with several contexts: each cluster has its own resource versions');
  const o = opts.output;
  const table = o.format === 'table' || o.format === 'wide';
  const withNamespace = opts.allNamespaces || (fleet.namespaces?.length ?? 0) > 1;
  const withKind = args.args[0]?.includes(',') === true;
  const stop = new AbortController();
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  const unlisten = io.onSignal?.((sig) => {
    signal ??= sig;
    stop.abort();
  });
  const watch = (hooks: Omit<FleetWatchOptions, 'args' | 'prog' | 'namespaces' | 'allNamespaces' | 'watch' | 'maxEvents' | 'signal' | 'until' | 'checkOnce'>) =>
    fleetWatch(fleet.contexts, fleet.open, {
      args: args.args,
      prog: args.prog,
      namespaces: fleet.namespaces,
      allNamespaces: opts.allNamespaces,
      watch: { ...streamOptions(opts, mode, table), trackGone: opts.waitFor !== undefined, clock: ctx.clock, logger: ctx.logger },
      maxEvents: opts.maxEvents,
      // --for: each context waits for its own objects (all its namespaces), and ends on its own.
      until: waitForUntil(opts),
      checkOnce: opts.checkOnce,
      signal: stop.signal,
      ...hooks,
    });
  let unmet = 0;
  const exit = (failures: number) => {
    unlisten?.();
    if (signal !== undefined) return EXIT_FOR_SIGNAL[signal];
    return failures + unmet > 0 ? 1 : 0;
  };

  if (live) {
    // q ends the watch (exit 0), Ctrl-C (a key in raw mode) as SIGINT would.
    const onQuit = (how: 'quit' | 'interrupt') => {
      if (how === 'interrupt') signal ??= 'SIGINT';
      stop.abort();
    };
    const namespaces = namespacesLabel(opts.allNamespaces, fleet.namespaces ?? parseNamespaces(args.flags.namespace));
    const view = await createFleetLivePrinter({ opts, withNamespace, withKind, clock: ctx.clock, onQuit, contexts: fleet.contexts, showContext: fleet.showContext, context: fleet.showContext ? undefined : (await ctx.restConfig()).contextName, namespaces }, io);
    let result;
    try {
      result = await watch({
        ...view.hooks,
        onEvents: (context, events, sources) => view.events(fleet.showContext ? context : undefined, events, sources),
        onError: (context, e) => view.failed(context, e),
      });
    } finally {
      view.end(fleet.report);
    }
    return exit(result.failures);
  }

  // --for without -o prints only kubectl wait's lines, as with one context.
  const quiet = opts.waitFor !== undefined && !o.explicit;
  const printer = await createPrinter(o, {
    events: opts.events,
    withNamespace: false, // a column of its own (withLeadingColumns), after CONTEXT
    withKind,
    keepManagedFields: o.showManagedFields || (mode === 'get' && opts.events && (o.format === 'json' || o.format === 'yaml')),
    quiet,
    verbose: ctx.logger.enabled(1),
  }, io);
  const toYAML = o.format === 'yaml' ? (await import('../../printers/yaml.js')).toYAML : undefined;
  const render = o.template?.compiled?.type === 'value' ? o.template.compiled.run : undefined;
  let docs = 0;
  /** One event of a context, as text: the event marked with its context (tables: a column, printed by the printer). */
  const text = (context: string, e: PrintedEvent): string => {
    const object = o.showManagedFields ? e.object : stripManagedFields(e.object as Unstructured);
    switch (o.format) {
      case 'name':
        return `${context}/${objectName(e.object as Unstructured, e.gk)}\n`;
      case 'jsonl':
        return jsonlEvent(context, e.type, object);
      case 'json':
        return `{"context":${goJSON(context)},"type":${goJSON(e.type)},"object":${goJSON(object)}}\n`;
      case 'yaml':
        return (docs++ === 0 ? '' : '---\n') + toYAML!({ context, object, type: e.type });
      default:
        return render!({ context, type: e.type, object: e.object });
    }
  };

  const label = (context: string, type: string) => (fleet.showContext ? `${context}/${type}` : type);
  // The printer keeps outage notices apart per source: one per context and type, named `context/type`.
  const sources = new Map<string, { type: string }>();
  const sourceFor = (context: string, type: string) => {
    const key = label(context, type);
    let s = sources.get(key);
    if (!s) sources.set(key, (s = { type: key }));
    return s;
  };
  const result = await watch({
    onEvents: (context, events) => {
      if (quiet) return;
      const c = fleet.showContext ? context : undefined;
      if (table) printer.event(events.map((e) => ({ ...e, object: withLeadingColumns(e.object as Table, { context: c, withNamespace }) })));
      else if (c === undefined) printer.event(events);
      else printer.text(events.map((e) => text(c, e)).join(''));
    },
    onError: (context, e) => {
      printer.notice(''); // the events so far first
      fleet.report(context, e);
    },
    onRetry: (context, r, s) => printer.retry(sourceFor(context, s.type), r),
    onResume: (context, r, s) => printer.resume(sourceFor(context, s.type), r),
    onGone: (context, s, e) => printer.notice(goneNotice(label(context, s.type), e)),
    // --for: each context's kubectl wait lines, its objects named `CONTEXT/kind/name`, and one
    // `error: context "C": ...` line per object it timed out on.
    onEnd: (context, r) => {
      if (!opts.waitFor) return;
      const end = waitForEnd(opts, r);
      if (!end.met) unmet++;
      if (!fleet.showContext) {
        printer.text(end.stdout);
        if (end.stderr) printer.notice(end.stderr);
        return;
      }
      printer.text(prefixLines(end.stdout, context));
      for (const line of end.stderr.split('\n').filter((l) => l !== '')) printer.notice(contextErrorLine(context, line));
    },
  });
  printer.end();
  return exit(result.failures);
}

function stripManagedFields(obj: Unstructured): Unstructured {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
