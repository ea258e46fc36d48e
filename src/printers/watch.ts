/**
 * Watch events as text, as `kubectl get -w` prints them (observed on kubectl v1.32), one call per
 * event so output streams:
 * - table / wide: the server's one-row Tables; the header once per column set; kubectl's tabwriter
 *   with remembered widths (a later row is at least as wide as the columns above it); with events,
 *   an EVENT column first (`ADDED   `, `MODIFIED`, `DELETED `: kubectl pads them to 8);
 * - name: `kind[.group]/name` (kubectl prints no event type there either);
 * - json: each object pretty-printed as `-o json`; with events, `{"type":...,"object":...}` compact,
 *   one per line (kubectl keeps managedFields there: so does `get -w --output-watch-events`);
 * - yaml: documents separated by `---`; with events, `object:` and `type:` keys;
 * - jsonl (kdyn): `{"type":...,"object":...}` per line, always;
 * - template (`-o jsonpath=...`, `-o go-template=...` and their -file forms): the template applied to
 *   each object, or with events to the `{"type":...,"object":...}` event, as kubectl does.
 * createEventPrinter is the output module's watch mode (./index.ts): the text batched into writes
 * (OutputBuffer), stderr notices (./watch-notices.ts) written after the events before them, the
 * outage notices at once.
 */
import type { Table, TableColumnDefinition } from '../core/table.js';
import { withoutManagedFields, type Unstructured } from '../core/unstructured.js';
import { formatColumns, type RememberedWidths } from './columns.js';
import { objectName, type GroupKind } from './name.js';
import { TABWRITER_MIN_WIDTH, TableAccumulator } from './table.js';
import { goJSON, toJSON } from './json.js';
import type { EventPrinter, PrintedEvent, WatchedSource, WatchFormat, WatchOutput, WatchPrintContext } from './types.js';
import { outageNotices } from './watch-notices.js';
import type { IO } from '../core/io.js';

export type { PrintedEvent, WatchFormat } from './types.js';

export interface WatchPrinterOptions {
  format: WatchFormat;
  /** `--output-watch-events` (kdyn watch: always): the event type with each object. */
  events: boolean;
  /** -A: a NAMESPACE column (tables). */
  withNamespace?: boolean;
  noHeaders?: boolean;
  /** Several kinds: names as `kind/name` in tables. */
  withKind?: boolean;
  /** Keep metadata.managedFields in json/yaml/jsonl (kubectl keeps them in event form only). */
  keepManagedFields?: boolean;
  /** format 'template': the compiled template (./template.ts). */
  render?: (data: unknown) => string;
}

const EVENT_CELLS: Record<string, string> = { ADDED: 'ADDED   ', MODIFIED: 'MODIFIED', DELETED: 'DELETED ', ERROR: 'ERROR   ' };

/**
 * The output module's watch mode: events printed by a WatchPrinter into an OutputBuffer; a notice
 * flushes the events before it, then goes to stderr.
 */
export async function createEventPrinter(o: WatchOutput, ctx: WatchPrintContext, io: IO): Promise<EventPrinter> {
  const printer = await createWatchPrinter({
    format: o.format,
    events: ctx.events,
    withNamespace: ctx.withNamespace,
    noHeaders: o.noHeaders,
    withKind: ctx.withKind,
    keepManagedFields: ctx.keepManagedFields,
    render: o.template?.compiled?.type === 'value' ? o.template.compiled.run : undefined,
  });
  const table = o.format === 'table' || o.format === 'wide';
  const out = new OutputBuffer(io);
  const notices = new Map<WatchedSource, ReturnType<typeof outageNotices>>();
  const noticesFor = (s: WatchedSource) => {
    let n = notices.get(s);
    if (!n) notices.set(s, (n = outageNotices(s.type, io, ctx.verbose)));
    return n;
  };
  return {
    event: (events) => {
      if (!ctx.quiet) out.write(table ? printer.printBlock(events) : events.map((e) => printer.print(e)).join(''));
    },
    text: (text) => out.write(text),
    notice: (text) => {
      out.flush();
      io.stderr.write(text);
    },
    // Written at once, between batches of events (kubectl's get -w prints none of these).
    retry: (s, info) => noticesFor(s).onRetry(info),
    resume: (s, info) => noticesFor(s).onResume(info),
    end: () => out.flush(),
  };
}

/**
 * Output in batches: events that arrive together (one network chunk) are written with one write;
 * a write happens at the latest on the next turn of the event loop, or at 64 KiB.
 */
export class OutputBuffer {
  private pending = '';
  private scheduled = false;

  constructor(private readonly io: IO) {}

  write(text: string): void {
    if (!text) return;
    this.pending += text;
    if (this.pending.length >= 65536) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.io.stdout.write(text);
  }
}

/** The printer for `opts`; the YAML encoder (js-yaml) is loaded only for `-o yaml`. */
export async function createWatchPrinter(opts: WatchPrinterOptions): Promise<WatchPrinter> {
  const toYAML = opts.format === 'yaml' ? (await import('./yaml.js')).toYAML : undefined;
  return new WatchPrinter(opts, toYAML);
}

export class WatchPrinter {
  private readonly widths: RememberedWidths = [];
  private readonly columnsByKind = new Map<string, TableColumnDefinition[]>();
  private headerFor: string | undefined;
  private count = 0;

  constructor(
    private readonly o: WatchPrinterOptions,
    private readonly toYAML?: (obj: unknown) => string,
  ) {}

  /** The text for one event ('' for nothing). */
  print(ev: PrintedEvent): string {
    const o = this.o;
    switch (o.format) {
      case 'table':
      case 'wide':
        return this.row(ev);
      case 'name':
        return objectName(ev.object as Unstructured, ev.gk) + '\n';
      case 'jsonl':
        return JSON.stringify({ type: ev.type, object: this.strip(ev.object as Unstructured, false) }) + '\n';
      case 'json':
        // A WatchEvent is a Go struct: `type` first, then `object` (whose map keys are sorted).
        return o.events ? `{"type":${goJSON(ev.type)},"object":${goJSON(this.strip(ev.object as Unstructured, true))}}\n` : toJSON(this.strip(ev.object as Unstructured, false));
      case 'yaml': {
        const toYAML = this.toYAML!;
        const doc = o.events ? toYAML({ object: this.strip(ev.object as Unstructured, true), type: ev.type }) : toYAML(this.strip(ev.object as Unstructured, false));
        return this.count++ === 0 ? doc : '---\n' + doc;
      }
      case 'template':
        // kubectl's template printers see the whole object, managedFields included.
        return o.render!(o.events ? { type: ev.type, object: ev.object } : ev.object);
    }
  }

  /** kubectl drops managedFields from objects it prints, but not inside a WatchEvent. */
  private strip(obj: Unstructured, inEvent: boolean): Unstructured {
    return this.o.keepManagedFields || inEvent ? obj : withoutManagedFields(obj);
  }

  /**
   * Table formats: several events as one tabwriter block (kubectl prints a whole list in one flush),
   * split where the kind changes.
   */
  printBlock(events: readonly PrintedEvent[]): string {
    if (this.o.format !== 'table' && this.o.format !== 'wide') return events.map((e) => this.print(e)).join('');
    let out = '';
    for (let i = 0; i < events.length; ) {
      let j = i + 1;
      while (j < events.length && sameKind(events[j]!.gk, events[i]!.gk)) j++;
      out += this.rows(events.slice(i, j));
      i = j;
    }
    return out;
  }

  private row(ev: PrintedEvent): string {
    return this.rows([ev]);
  }

  /** Events of one kind as one block. */
  private rows(evs: readonly PrintedEvent[]): string {
    const o = this.o;
    const gk = evs[0]!.gk;
    const kindKey = `${gk.kind}.${gk.group}`;
    if (this.headerFor !== undefined && this.headerFor !== kindKey) this.widths.length = 0; // a new kind: a new header and layout
    const acc = new TableAccumulator({ wide: o.format === 'wide', noHeaders: o.noHeaders || this.headerFor === kindKey, withNamespace: o.withNamespace });
    for (const ev of evs) {
      const t = ev.object as Table;
      // The server sends the columns with the first event of a stream only; keep them per kind.
      let columns = t.columnDefinitions && t.columnDefinitions.length > 0 ? t.columnDefinitions : undefined;
      if (columns) this.columnsByKind.set(kindKey, columns);
      else columns = this.columnsByKind.get(kindKey) ?? [];
      acc.add({ ...t, columnDefinitions: columns });
    }
    const headerLines = acc.lineCount - evs.length;
    this.headerFor = kindKey;
    const prefix = o.withKind ? (gk.group ? `${gk.kind}.${gk.group}` : gk.kind).toLowerCase() : undefined;
    const rows = acc.cells(prefix);
    if (o.events) {
      for (let i = 0; i < rows.length; i++) rows[i]!.unshift(i < headerLines ? 'EVENT' : EVENT_CELLS[evs[i - headerLines]!.type] ?? evs[i - headerLines]!.type);
    }
    return formatColumns(rows, { minWidth: TABWRITER_MIN_WIDTH, remembered: this.widths });
  }
}

function sameKind(a: GroupKind, b: GroupKind): boolean {
  return a.kind === b.kind && a.group === b.group;
}
