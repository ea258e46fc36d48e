/**
 * `kdyn watch` (and `get -w`) over several contexts or namespaces: flags -> ../../fleet/watch.ts ->
 * the watch printer, each event marked with its context (../../fleet/output.ts): tables get a
 * CONTEXT column (after EVENT), `-o name` a `CONTEXT/` prefix, and jsonl/json/yaml/templates the
 * event as `{"context":C,"type":T,"object":O}`. Notices name the context (`watch of east/pods`).
 * A context that fails is one stderr line and the others go on; exit 1 at the end if any failed.
 */
import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError, oneLine } from '../../core/errors.js';
import type { Table } from '../../core/table.js';
import type { Unstructured } from '../../core/unstructured.js';
import { createWatchPrinter, type PrintedEvent } from '../../printers/watch.js';
import { goJSON } from '../../printers/json.js';
import { fleetRequest } from '../fleet.js';
import { fleetWatch } from '../../fleet/watch.js';
import { jsonlEvent, prefixLines, withLeadingColumns } from '../../fleet/output.js';
import { streamOptions, type WatchOptions } from '../watch-options.js';
import { OutputBuffer, outageNotices } from '../watch-output.js';

const EXIT_FOR_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

export async function runFleet(args: ParsedArgs, ctx: Context, io: IO, opts: WatchOptions, mode: 'watch' | 'get'): Promise<number> {
  if (opts.waitFor) throw new UsageError('--for is not supported with several contexts or namespaces');
  const fleet = await fleetRequest(args, ctx, { namespaces: true });
  if (fleet.showContext && opts.resourceVersion !== undefined) throw new UsageError('--resource-version is not supported with several contexts: each cluster has its own resource versions');
  const table = opts.format === 'table' || opts.format === 'wide';
  const withNamespace = opts.allNamespaces || (fleet.namespaces?.length ?? 0) > 1;
  const printer = await createWatchPrinter({
    format: opts.format,
    events: opts.events,
    withNamespace: false, // a column of its own (withLeadingColumns), after CONTEXT
    noHeaders: opts.noHeaders,
    withKind: args.args[0]?.includes(',') === true,
    keepManagedFields: opts.showManagedFields || (mode === 'get' && opts.events && (opts.format === 'json' || opts.format === 'yaml')),
    render: opts.render,
  });
  const toYAML = opts.format === 'yaml' ? (await import('../../printers/yaml.js')).toYAML : undefined;
  let docs = 0;
  const out = new OutputBuffer(io);
  const text = (context: string | undefined, e: PrintedEvent): string => {
    if (context === undefined || opts.format === 'table' || opts.format === 'wide') return printer.print(e);
    const object = opts.showManagedFields ? e.object : stripManagedFields(e.object as Unstructured);
    switch (opts.format) {
      case 'name':
        return prefixLines(printer.print(e), context);
      case 'jsonl':
        return jsonlEvent(context, e.type, object);
      case 'json':
        return `{"context":${goJSON(context)},"type":${goJSON(e.type)},"object":${goJSON(object)}}\n`;
      case 'yaml':
        return (docs++ === 0 ? '' : '---\n') + toYAML!({ context, object, type: e.type });
      default:
        return opts.render!({ context, type: e.type, object: e.object });
    }
  };

  const stop = new AbortController();
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  const unlisten = io.onSignal?.((sig) => {
    signal ??= sig;
    stop.abort();
  });
  const notices = new Map<string, ReturnType<typeof outageNotices>>();
  const noticesFor = (context: string, type: string) => {
    const label = fleet.showContext ? `${context}/${type}` : type;
    let n = notices.get(label);
    if (!n) notices.set(label, (n = outageNotices(label, io, ctx.logger.enabled(1))));
    return n;
  };
  const result = await fleetWatch(fleet.contexts, fleet.open, {
    args: args.args,
    prog: args.prog,
    namespaces: fleet.namespaces,
    allNamespaces: opts.allNamespaces,
    watch: { ...streamOptions(opts, mode, table), clock: ctx.clock, logger: ctx.logger },
    maxEvents: opts.maxEvents,
    signal: stop.signal,
    onEvents: (context, events) => {
      const label = fleet.showContext ? context : undefined;
      const printed: PrintedEvent[] = events.map((e) => ({
        type: e.type,
        gk: e.gk,
        object: table ? withLeadingColumns(e.object as Table, { context: label, withNamespace }) : e.object,
      }));
      out.write(table ? printer.printBlock(printed) : printed.map((e) => text(label, e)).join(''));
    },
    onError: (context, e) => {
      out.flush();
      fleet.report(context, e);
    },
    onRetry: (context, r, s) => noticesFor(context, s.type).onRetry(r),
    onResume: (context, r, s) => noticesFor(context, s.type).onResume(r),
    onGone: (context, s, e) => {
      out.flush();
      const label = fleet.showContext ? `${context}/${s.type}` : s.type;
      io.stderr.write(`Warning: watch of ${label} ended: the resource type is no longer served (${oneLine(e.status.message ?? e.message)})\n`);
    },
  });
  unlisten?.();
  out.flush();
  if (signal !== undefined) return EXIT_FOR_SIGNAL[signal];
  return result.failures > 0 ? 1 : 0;
}

function stripManagedFields(obj: Unstructured): Unstructured {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
