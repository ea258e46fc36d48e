/**
 * The watch's event printer (../printers/watch.ts) decorated with the context each event comes from
 * (issue 24; docs/fleet.md): for a fleet, tables get a CONTEXT column (after EVENT, then NAMESPACE
 * with -A or several namespaces), `-o name` a `CONTEXT/` prefix, and jsonl/json/yaml/templates the
 * event as `{"context":C,"type":T,"object":O}`; notices name the context (`watch of east/pods`), and
 * --for's lines name it too (`CONTEXT/kind/name`, `error: context "C": ...`). Without a fleet
 * (one context, no fleet selector) every call goes to the printer as it is: kubectl's output.
 */
import type { StatusError } from '../core/errors.js';
import type { Table } from '../core/table.js';
import type { EventPrinter, PrintedEvent, ResumeInfo, RetryInfo, WatchedSource, WatchOutput } from './index.js';
import { objectName } from './name.js';
import { goJSON } from './json.js';
import { goneNotice, relistNotice } from './watch-notices.js';
import { withoutManagedFields, type Unstructured } from '../core/unstructured.js';
import { contextErrorLine, jsonlEvent, prefixLines, withLeadingColumns } from './envelopes.js';

/** How a fleet's output names where an event comes from. */
export interface ContextDecoration {
  /** Name the context (any fleet selector; false: one context, several namespaces). */
  showContext: boolean;
  /** A NAMESPACE column of its own in tables, after CONTEXT (-A or several namespaces). */
  withNamespace: boolean;
}

/** An EventPrinter whose calls say which context they are about. */
export interface ContextEventPrinter {
  /** A batch of one context's events. */
  event(context: string, events: readonly PrintedEvent[]): void;
  /** --for's end in one context: kubectl wait's lines (stdout) and its errors (stderr). */
  waitEnd(context: string, end: { stdout: string; stderr: string }): void;
  /** A stderr line, after the events before it. */
  notice(text: string): void;
  retry(context: string, source: WatchedSource, info: RetryInfo): void;
  resume(context: string, source: WatchedSource, info: ResumeInfo): void;
  /** A 410 before any list (from --resource-version): the relist prints every object as ADDED (said for one context). */
  relist(context: string, source: WatchedSource, info: { resourceVersion?: string; error: Error }, requested: string | undefined): void;
  /** A type no longer served: its stream ended (one context: said once per type; a fleet: per source). */
  gone(context: string, source: WatchedSource, error: StatusError): void;
  end(): void;
}

/**
 * `printer` with the context: as it is without `decoration`, else a fleet's. `quiet`: the events
 * are not printed (--for without -o), as the printer itself does.
 */
export async function withContext(printer: EventPrinter, o: WatchOutput, decoration: ContextDecoration | undefined, quiet: boolean): Promise<ContextEventPrinter> {
  const showContext = decoration?.showContext === true;
  const label = (context: string, type: string) => (showContext ? `${context}/${type}` : type);
  // The notices of an outage are kept apart per source (a fleet's: per context and type, named `context/type`).
  const sources = new Map<string, WatchedSource>();
  const sourceFor = (context: string, s: WatchedSource): WatchedSource => {
    if (!decoration) return s;
    const key = label(context, s.type);
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { type: key }));
    return source;
  };
  const gone = new Set<string>();
  const record = decoration && showContext && o.format !== 'table' && o.format !== 'wide' ? await recordText(o) : undefined;
  return {
    event(context, events) {
      if (!decoration || quiet) printer.event(events);
      else if (record) printer.text(events.map((e) => record(context, e)).join(''));
      else if (o.format === 'table' || o.format === 'wide') {
        const lead = { context: showContext ? context : undefined, withNamespace: decoration.withNamespace };
        printer.event(events.map((e) => ({ ...e, object: withLeadingColumns(e.object as Table, lead) })));
      } else printer.event(events);
    },
    waitEnd(context, end) {
      if (!showContext) {
        printer.text(end.stdout);
        if (end.stderr) printer.notice(end.stderr);
        return;
      }
      printer.text(prefixLines(end.stdout, context));
      for (const line of end.stderr.split('\n').filter((l) => l !== '')) printer.notice(contextErrorLine(context, line));
    },
    notice: (text) => printer.notice(text),
    retry: (context, s, info) => printer.retry(sourceFor(context, s), info),
    resume: (context, s, info) => printer.resume(sourceFor(context, s), info),
    // (A fleet's output says neither of these twice per type, nor the relist: as before issue 36.)
    relist(_context, s, info, requested) {
      if (!decoration) printer.notice(relistNotice(s.type, info.resourceVersion, info.error, requested));
    },
    gone(context, s, e) {
      const type = label(context, s.type);
      if (!decoration && gone.has(type)) return;
      gone.add(type);
      printer.notice(goneNotice(type, e));
    },
    end: () => printer.end(),
  };
}

/** A fleet's event, as text in the object formats: `CONTEXT/kind/name`, or the `{context,type,object}` record. */
async function recordText(o: WatchOutput): Promise<(context: string, e: PrintedEvent) => string> {
  const toYAML = o.format === 'yaml' ? (await import('./yaml.js')).toYAML : undefined;
  const render = o.template?.compiled?.type === 'value' ? o.template.compiled.run : undefined;
  let docs = 0;
  return (context, e) => {
    const object = o.showManagedFields ? e.object : withoutManagedFields(e.object as Unstructured);
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
}
