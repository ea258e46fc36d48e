/**
 * The live view's table: the current objects of every watched kind as the server's one-row Tables
 * (the watcher's store, rebuilt from its events: applied in order they give the store), each row's
 * cells formatted once when its event arrives, kept sorted (context, namespace/name, or --sort-by), with the
 * marks of recent changes: a changed (or new) row is marked for `markMs`, a deleted row stays, dimmed,
 * for `keepDeletedMs`. `render` lays out only the lines that fit (kubectl's column layout, widths
 * from every row shown, so a filter narrows them) and counts the rest for a "+N more" line.
 */
import type { Table, TableColumnDefinition } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import { displayWidth } from '../printers/columns.js';
import { TABWRITER_MIN_WIDTH, formatCell } from '../printers/table.js';
import type { Sorter } from '../printers/sort.js';
import { naturalCompare } from '../core/natural.js';
import type { Style } from './ansi.js';
import { humanDuration, parseHumanDuration, untilNextChange } from './age.js';
import type { Line } from './frame.js';

export interface LiveRowsOptions {
  /** `-o wide`: the columns of priority > 0 too. */
  wide?: boolean;
  /** A CONTEXT column first (several contexts: each event's `context`). */
  withContext?: boolean;
  /** A NAMESPACE column (-A). */
  withNamespace?: boolean;
  /** Names as `kind/name` (several kinds). */
  withKind?: boolean;
  noHeaders?: boolean;
  /** How long a changed row stays marked (ms, default 2,000). */
  markMs?: number;
  /** How long a deleted row stays, dimmed (ms, default 5,000). */
  keepDeletedMs?: number;
  /** --sort-by; default namespace/name. */
  sorter?: Sorter;
  /** Styles for marks (false: NO_COLOR): without them a deleted row goes at once and changes are not marked. */
  styles?: boolean;
}

/** One event of one kind, as src/watch/multi.ts delivers it with server-side printing. */
export interface RowEvent {
  type: string;
  object: Unstructured | Table;
  gk: { group: string; kind: string };
  /** The kubeconfig context it came from (several contexts: part of the row's key). */
  context?: string;
}

interface Entry {
  context: string;
  namespace: string;
  name: string;
  object: Unstructured | undefined;
  cells: string[];
  widths: number[];
  /** When its last change arrived (undefined: part of an initial list, not marked). */
  changedAt?: number;
  deletedAt?: number;
  /** Its AGE as the server printed it (ms) and when that arrived: the age now is their sum's. */
  age?: { ms: number; at: number };
}

interface Group {
  key: string;
  /** `kind/` before names (several kinds), else ''. */
  kindPrefix: string;
  columns: TableColumnDefinition[];
  /** The indexes of the columns shown (priority 0, or all with -o wide). */
  visible: number[];
  /** The index of the name among the cells shown (-1: none). */
  nameCell: number;
  /** The index of AGE among the cells shown (-1: none). */
  ageCell: number;
  header: string[];
  headerWidths: number[];
  /** Per column, how many rows have a cell of each width (the widest without looking at every row). */
  widthCounts: number[][];
  entries: Map<string, Entry>;
  /** Entries in display order (deleted ones still shown included). */
  order: Entry[];
  /** --sort-by: the order needs sorting again. */
  unsorted: boolean;
  present: number;
}

export interface Rendered {
  lines: Line[];
  /** Object rows in the filter not shown for lack of room. */
  hidden: number;
  /** Object rows in the filter (deleted ones still shown included). */
  shown: number;
}

const MARK_MS = 2000;
const KEEP_DELETED_MS = 5000;

export class LiveRows {
  private readonly groups = new Map<string, Group>();
  /** Entries with a mark or a deletion pending (when each ends decides the next redraw). */
  private readonly marked = new Set<Entry>();
  private readonly markMs: number;
  private readonly keepDeletedMs: number;
  /** --sort-by failed (e.g. no object has the field): the message; rows stay in namespace/name order. */
  sortError: string | undefined;
  /** When the next AGE shown changes (undefined: none shown). */
  private nextAgeAt: number | undefined;

  constructor(private readonly o: LiveRowsOptions = {}) {
    const styles = o.styles ?? true;
    this.markMs = styles ? o.markMs ?? MARK_MS : 0;
    this.keepDeletedMs = styles ? o.keepDeletedMs ?? KEEP_DELETED_MS : 0;
  }

  /** Applies one event; `initial`: part of a first list (not marked). */
  apply(ev: RowEvent, now: number, initial = false): void {
    const table = ev.object as Table;
    const row = table.rows?.[0];
    const meta = row?.object?.metadata;
    if (!row || !meta || typeof meta.name !== 'string') return;
    const g = this.group(ev.gk, table.columnDefinitions);
    const context = ev.context ?? '';
    const key = keyOf(context, meta.namespace ?? '', meta.name);
    const old = g.entries.get(key);
    if (ev.type === 'DELETED') {
      if (!old || old.deletedAt !== undefined) return;
      g.present--;
      if (this.keepDeletedMs > 0) {
        old.deletedAt = now;
        this.marked.add(old);
      } else this.remove(g, key, old);
      return;
    }
    // The cells as kubectl's table printer makes them (../printers/table.ts), formatted once here.
    const cells: string[] = this.o.withContext ? [context] : [];
    if (this.o.withNamespace) cells.push(meta.namespace ?? '');
    for (const i of g.visible) cells.push(formatCell(row.cells?.[i]));
    if (g.kindPrefix && g.nameCell >= 0 && g.nameCell < cells.length) cells[g.nameCell] = g.kindPrefix + cells[g.nameCell];
    const entry: Entry = old ?? { context, namespace: meta.namespace ?? '', name: meta.name, object: row.object, cells, widths: [] };
    entry.object = row.object;
    entry.cells = cells;
    const age = g.ageCell >= 0 && g.ageCell < cells.length ? parseHumanDuration(cells[g.ageCell]!) : undefined;
    entry.age = age === undefined ? undefined : { ms: age, at: now };
    if (age !== undefined) this.ageDue(age, now);
    if (old) count(g, old.widths, -1);
    entry.widths = cells.map(displayWidth);
    count(g, entry.widths, 1);
    if (!old || old.deletedAt !== undefined) g.present++;
    entry.deletedAt = undefined;
    entry.changedAt = initial || this.markMs === 0 ? undefined : now;
    if (entry.changedAt !== undefined) this.marked.add(entry);
    else this.marked.delete(entry);
    if (!old) {
      g.entries.set(key, entry);
      if (this.o.sorter) {
        g.order.push(entry);
        g.unsorted = true;
      } else g.order.splice(insertionPoint(g.order, entry), 0, entry);
    } else if (this.o.sorter) g.unsorted = true;
  }

  /** Drops the deleted rows whose time is up, ends the marks whose time is up; true when anything changed. */
  expire(now: number): boolean {
    let changed = false;
    for (const e of this.marked) {
      if (e.deletedAt !== undefined) {
        if (now - e.deletedAt < this.keepDeletedMs) continue;
        const g = this.groupOf(e);
        if (g) this.remove(g, keyOf(e.context, e.namespace, e.name), e);
        changed = true;
      } else if (e.changedAt === undefined || now - e.changedAt >= this.markMs) {
        this.marked.delete(e);
        e.changedAt = undefined;
        changed = true;
      }
    }
    return changed;
  }

  /**
   * AGE counting up: each row's age as the server printed it plus the time since it arrived, so the
   * screen does not freeze at each row's last event. Rows are looked at only when an age is due to
   * change; true when a cell changed.
   */
  ages(now: number): boolean {
    if (this.nextAgeAt === undefined || now < this.nextAgeAt) return false;
    this.nextAgeAt = undefined;
    let changed = false;
    for (const g of this.groups.values()) {
      if (g.ageCell < 0) continue;
      for (const e of g.entries.values()) {
        if (!e.age || e.deletedAt !== undefined) continue;
        const ms = e.age.ms + now - e.age.at;
        const text = humanDuration(ms);
        if (text !== e.cells[g.ageCell]) {
          count(g, e.widths, -1);
          e.cells[g.ageCell] = text;
          e.widths[g.ageCell] = displayWidth(text);
          count(g, e.widths, 1);
          changed = true;
        }
        this.ageDue(ms, now);
      }
    }
    return changed;
  }

  /** When an AGE shown changes next (undefined: none shown). */
  nextAgeChange(): number | undefined {
    return this.nextAgeAt;
  }

  private ageDue(ms: number, now: number): void {
    const at = now + untilNextChange(ms);
    if (this.nextAgeAt === undefined || at < this.nextAgeAt) this.nextAgeAt = at;
  }

  /** When the next mark ends or deleted row goes (undefined: none pending). */
  nextExpiry(): number | undefined {
    let next: number | undefined;
    for (const e of this.marked) {
      const at = e.deletedAt !== undefined ? e.deletedAt + this.keepDeletedMs : (e.changedAt ?? 0) + this.markMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** Objects per kind now (deleted ones still shown not counted), in the order the kinds came. */
  counts(): Array<{ kind: string; count: number }> {
    return [...this.groups.values()].map((g) => ({ kind: g.key, count: g.present }));
  }

  /**
   * The table lines for at most `maxLines` lines: per kind its header and rows, a blank line
   * between kinds; when they do not all fit, the last line says `+N more`. `filter`: names that
   * contain it (case-insensitive) only.
   */
  render(maxLines: number, filter?: string): Rendered {
    const needle = filter ? filter.toLowerCase() : undefined;
    const blocks: Array<{ g: Group; rows: Entry[]; widths: number[] }> = [];
    let total = 0;
    let shown = 0;
    for (const g of this.groups.values()) {
      this.sort(g);
      const rows = needle ? g.order.filter((e) => e.name.toLowerCase().includes(needle)) : g.order;
      if (rows.length === 0) continue;
      const widths = needle ? columnWidths(g, rows, !this.o.noHeaders) : widestCells(g, !this.o.noHeaders);
      total += (blocks.length > 0 ? 1 : 0) + (this.o.noHeaders ? 0 : 1) + rows.length;
      shown += rows.length;
      blocks.push({ g, rows, widths });
    }
    const room = total > maxLines ? Math.max(0, maxLines - 1) : maxLines;
    const lines: Line[] = [];
    let drawn = 0;
    for (const { g, rows, widths } of blocks) {
      if (lines.length > 0 && lines.length < room) lines.push({ text: '' });
      if (!this.o.noHeaders && lines.length < room) lines.push({ text: pad(g.header, g.headerWidths, widths) });
      for (const e of rows) {
        if (lines.length >= room) break;
        lines.push({ text: pad(e.cells, e.widths, widths), style: this.styleOf(e) });
        drawn++;
      }
    }
    const hidden = shown - drawn;
    if (hidden > 0 && maxLines > 0) lines.push({ text: `+${hidden} more` });
    if (blocks.length === 0 && maxLines > 0) lines.push({ text: filter ? `No names contain "${filter}".` : 'No resources found.', style: 'dim' });
    return { lines, hidden, shown };
  }

  private styleOf(e: Entry): Style | undefined {
    if (e.deletedAt !== undefined) return 'dim';
    return e.changedAt !== undefined ? 'reverse' : undefined;
  }

  private group(gk: RowEvent['gk'], columns: TableColumnDefinition[] | undefined): Group {
    const key = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
    let g = this.groups.get(key);
    if (!g) {
      const kindPrefix = this.o.withKind ? `${key.toLowerCase()}/` : '';
      g = { key, kindPrefix, columns: [], visible: [], nameCell: -1, ageCell: -1, header: [], headerWidths: [], widthCounts: [], entries: new Map(), order: [], unsorted: false, present: 0 };
      this.groups.set(key, g);
    }
    // The server sends the columns with the first event of a stream only: keep the last ones seen.
    if (columns && columns.length > 0 && columns !== g.columns) this.setColumns(g, columns);
    return g;
  }

  /** kubectl's header: CONTEXT (several contexts, as the fleet's appending table), NAMESPACE (-A), then the visible columns' names upper-cased. */
  private setColumns(g: Group, columns: TableColumnDefinition[]): void {
    g.columns = columns;
    g.visible = [];
    for (let i = 0; i < columns.length; i++) if (this.o.wide || !columns[i]!.priority) g.visible.push(i);
    const name = columns.findIndex((c) => c.format === 'name' && c.type === 'string');
    const lead = [...(this.o.withContext ? ['CONTEXT'] : []), ...(this.o.withNamespace ? ['NAMESPACE'] : [])];
    const offset = lead.length;
    g.nameCell = name < 0 || !g.visible.includes(name) ? -1 : g.visible.indexOf(name) + offset;
    const age = columns.findIndex((c) => c.name === 'Age');
    g.ageCell = age < 0 || !g.visible.includes(age) ? -1 : g.visible.indexOf(age) + offset;
    g.header = [...lead, ...g.visible.map((i) => columns[i]!.name.toUpperCase())];
    g.headerWidths = g.header.map(displayWidth);
  }

  private groupOf(e: Entry): Group | undefined {
    for (const g of this.groups.values()) if (g.entries.get(keyOf(e.context, e.namespace, e.name)) === e) return g;
    return undefined;
  }

  private remove(g: Group, key: string, e: Entry): void {
    g.entries.delete(key);
    count(g, e.widths, -1);
    this.marked.delete(e);
    const at = this.o.sorter ? g.order.indexOf(e) : insertionPoint(g.order, e);
    if (g.order[at] === e) g.order.splice(at, 1);
    else g.order.splice(g.order.indexOf(e), 1);
  }

  private sort(g: Group): void {
    if (!this.o.sorter || !g.unsorted) return;
    g.unsorted = false;
    g.order.sort(byNamespaceName);
    const rows = g.order.map((e) => ({ cells: [], object: e.object, e }));
    try {
      this.o.sorter.sortTable({ rows } as unknown as Table);
      g.order = rows.map((r) => r.e);
      this.sortError = undefined;
    } catch (e) {
      this.sortError = (e as Error).message;
    }
  }
}

/** A row's key: context, namespace and name (a context or namespace name has no NUL in it). */
function keyOf(context: string, namespace: string, name: string): string {
  return `${context}\0${namespace}\0${name}`;
}

/** Context (natural order: f1, f2, f10), then namespace, then name (the context is '' with one context). */
function byNamespaceName(a: Entry, b: Entry): number {
  if (a.context !== b.context) return naturalCompare(a.context, b.context);
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Where `e` goes in `order` (sorted by namespace/name): the first index not before it. */
function insertionPoint(order: readonly Entry[], e: Entry): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (byNamespaceName(order[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const MIN_TEXT = TABWRITER_MIN_WIDTH - 3;

/** kubectl's tabwriter widths (../printers/columns.ts) over the header and `rows` (a filter's). */
function columnWidths(g: Group, rows: readonly Entry[], header: boolean): number[] {
  const widths: number[] = header ? g.headerWidths.map((w) => Math.max(w, MIN_TEXT)) : [];
  for (const e of rows) {
    const ws = e.widths;
    for (let i = 0; i < ws.length; i++) if (!(ws[i]! <= widths[i]!)) widths[i] = Math.max(ws[i]!, MIN_TEXT);
  }
  return widths;
}

/** The same over all of a group's rows, from its width counts. */
function widestCells(g: Group, header: boolean): number[] {
  const widths: number[] = header ? g.headerWidths.map((w) => Math.max(w, MIN_TEXT)) : [];
  g.widthCounts.forEach((counts, i) => {
    // Drop the widths no row has any more, so the widest is the last.
    while (counts.length > 0 && !counts[counts.length - 1]) counts.length--;
    if (counts.length > 0) widths[i] = Math.max(widths[i] ?? MIN_TEXT, counts.length - 1, MIN_TEXT);
  });
  return widths;
}

function count(g: Group, widths: readonly number[], by: 1 | -1): void {
  for (let i = 0; i < widths.length; i++) {
    const counts = (g.widthCounts[i] ??= []);
    const w = widths[i]!;
    counts[w] = (counts[w] ?? 0) + by;
  }
}

/** One line of cells, each padded to its column's width plus three spaces, the last unpadded. */
function pad(cells: readonly string[], cellWidths: readonly number[], widths: readonly number[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += i === cells.length - 1 ? cells[i]! : cells[i]! + ' '.repeat(Math.max(0, widths[i]! - cellWidths[i]!) + 3);
  return line;
}
