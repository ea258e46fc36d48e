/**
 * The server's meta.k8s.io Table to kubectl's text table (`CR/pkg/printers/tableprinter.go`:
 * `HumanReadablePrinter.PrintObj`, `decorateTable`, `printTable`). Headers upper-cased,
 * priority != 0 columns only when wide, NAMESPACE from each row's (PartialObject)metadata,
 * `-L`/`--show-labels` columns, `kind/name` names, strings cut at the first line break with `...`,
 * nil cells empty. Pages of one list are added one by one; only the printed cells are kept,
 * never the objects. Layout: kubectl's tabwriter (./columns.ts).
 */
import type { Table, TableColumnDefinition, TableRow } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import { formatColumns } from './columns.js';

export interface TablePrintOptions {
  /** `-o wide`: also the columns with priority != 0. */
  wide?: boolean;
  noHeaders?: boolean;
  /** `-A` on a namespaced resource: a NAMESPACE column first. */
  withNamespace?: boolean;
  /** `--show-labels`: a LABELS column last. */
  showLabels?: boolean;
  /** `-L key,...`: one column per label key. */
  labelColumns?: readonly string[];
}

/** kubectl's tabwriter minimum cell width (`printers.GetNewTabWriter`: minwidth 6, padding 3). */
export const TABWRITER_MIN_WIDTH = 6;

/**
 * Accumulates the Tables of one resource (one kubectl printer: one header, one alignment).
 * `add` each page (or each named object's one-row Table), then `render`.
 */
export class TableAccumulator {
  private readonly rows: string[][] = [];
  /** Per line: the index of the name cell (for `kind/name`), -1 for headers. */
  private readonly nameCells: number[] = [];
  private lastColumns: TableColumnDefinition[] | undefined;
  private printedHeaders = false;

  constructor(private readonly options: TablePrintOptions = {}) {}

  /** Number of lines so far (headers included). */
  get lineCount(): number {
    return this.rows.length;
  }

  add(table: Table): void {
    const o = this.options;
    let columns = table.columnDefinitions ?? [];
    let noHeaders = !!o.noHeaders;
    if (this.printedHeaders && (columns.length === 0 || sameColumns(columns, this.lastColumns))) noHeaders = true;
    if (columns.length === 0) columns = this.lastColumns ?? [];
    else if (!sameColumns(columns, this.lastColumns)) {
      this.lastColumns = columns;
      this.printedHeaders = false;
    }
    const rows = table.rows ?? [];
    if (rows.length > 0) this.printedHeaders = true;
    // An empty table prints nothing, not even its headers.
    if (rows.length === 0) return;

    const visible: number[] = [];
    for (let i = 0; i < columns.length; i++) if (o.wide || !columns[i]!.priority) visible.push(i);
    const nameColumn = columns.findIndex((c) => c.format === 'name' && c.type === 'string');
    const nameCell = nameColumn < 0 || !visible.includes(nameColumn) ? -1 : visible.indexOf(nameColumn) + (o.withNamespace ? 1 : 0);
    const labelKeys = o.labelColumns ?? [];

    if (!noHeaders) {
      const header: string[] = [];
      if (o.withNamespace) header.push('NAMESPACE');
      for (const i of visible) header.push(columns[i]!.name.toUpperCase());
      for (const l of labelKeys) header.push(labelHeader(l));
      if (o.showLabels) header.push('LABELS');
      this.rows.push(header);
      this.nameCells.push(-1);
    }
    for (const row of rows) {
      this.rows.push(this.rowCells(row, columns.length, visible, labelKeys));
      this.nameCells.push(nameCell);
    }
  }

  private rowCells(row: TableRow, columnCount: number, visible: readonly number[], labelKeys: readonly string[]): string[] {
    const o = this.options;
    const meta = metadataOf(row.object);
    const out: string[] = [];
    if (o.withNamespace) out.push(meta?.namespace ?? '');
    const cells = row.cells ?? [];
    for (const i of visible) {
      if (i >= columnCount) break;
      out.push(formatCell(cells[i]));
    }
    if (labelKeys.length || o.showLabels) {
      const labels = meta?.labels;
      for (const k of labelKeys) out.push(meta ? escapeTerminal(labels?.[k] ?? '') : '');
      if (o.showLabels) out.push(meta ? escapeTerminal(formatLabels(labels)) : '');
    }
    return out;
  }

  /**
   * The lines so far, as kubectl's tabwriter lays them out. `kindPrefix` (several kinds, or
   * --show-kind) writes names as `kind/name`: the lower-cased GroupKind, e.g. `configmap` or
   * `crontab.stable.example.com`.
   */
  render(kindPrefix?: string): string {
    if (kindPrefix) {
      for (let i = 0; i < this.rows.length; i++) {
        const c = this.nameCells[i]!;
        if (c >= 0) this.rows[i]![c] = `${kindPrefix}/${this.rows[i]![c]}`;
      }
      this.nameCells.fill(-1);
    }
    return formatColumns(this.rows, { minWidth: TABWRITER_MIN_WIDTH });
  }
}

/** One Table printed on its own (tests, small tables). */
export function printTable(table: Table, options: TablePrintOptions & { kindPrefix?: string } = {}): string {
  const acc = new TableAccumulator(options);
  acc.add(table);
  return acc.render(options.kindPrefix);
}

function metadataOf(obj: Unstructured | undefined): { namespace?: string; labels?: Record<string, string> } | undefined {
  const m = obj && typeof obj === 'object' ? obj.metadata : undefined;
  return m && typeof m === 'object' ? m : undefined;
}

function sameColumns(a: readonly TableColumnDefinition[], b: readonly TableColumnDefinition[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.type !== y.type || x.format !== y.format || (x.priority ?? 0) !== (y.priority ?? 0) || (x.description ?? '') !== (y.description ?? '')) return false;
  }
  return true;
}

/** `-L app.kubernetes.io/name` -> `NAME` (the last path segment, upper-cased). */
export function labelHeader(label: string): string {
  const parts = label.split('/');
  return parts[parts.length - 1]!.toUpperCase();
}

/** apimachinery `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const keys = labels ? Object.keys(labels).sort() : [];
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels![k]}`).join(',');
}

/** A cell as kubectl prints it: nil empty, strings cut at the first \f \n \r with `...`, terminal escapes defused. */
export function formatCell(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'string') {
    const brk = cell.search(/[\f\n\r]/);
    return brk >= 0 ? escapeTerminal(cell.slice(0, brk)) + '...' : escapeTerminal(cell);
  }
  return escapeTerminal(goSprint(cell));
}

/** kubectl `printers.EscapeTerminal`: ESC -> `^[`, CR -> `\r`. */
export function escapeTerminal(s: string): string {
  if (!s.includes('\x1b') && !s.includes('\r')) return s;
  return s.replace(/\x1b/g, '^[').replace(/\r/g, '\\r');
}

/** Go's fmt.Sprint for JSON-decoded values (numbers, booleans, `[a b]`, `map[k:v]`). */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goSprint(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  // Go's %v for float64 is %g with the shortest representation: exponent for < 1e-4 or >= 1e21, two-digit exponent.
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}
