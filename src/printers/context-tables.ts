/**
 * The tables of `get` over several contexts or namespaces (./context.ts decorates with them):
 * - the default and wide output: one table per resource over every context, CONTEXT first (with a
 *   fleet selector), then NAMESPACE (with -A or several namespaces), added to the server's Table as
 *   ordinary columns (withLeadingColumns) so the table printer (./table.ts) lays them out as any
 *   other; the contexts' rows in selection order under one header (a header repeated only where
 *   the columns change: mergeRows);
 * - `-o custom-columns`: one table over every context, CONTEXT then the user's columns, one header.
 *   Each context's rows are collected as a single-context get collects them (./custom-columns.ts):
 *   a row whose path fails on its object ends that context's rows, the ones before it are kept, and
 *   the failure is that context's error.
 * Only printed cells are kept, never the objects (but with --sort-by, a context's own until sorted).
 */
import type { IO } from '../core/io.js';
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { CompiledTemplate, ContextStart, GetOutput, GetPrintContext, GetPrinter, PrintedResource } from './types.js';
import { formatColumns } from './columns.js';
import { TABWRITER_MIN_WIDTH, TableAccumulator } from './table.js';
import { CUSTOM_COLUMNS_MIN_WIDTH, CustomColumnsPrinter } from './custom-columns.js';
import { withLeadingColumns } from './envelopes.js';

type Columns = Extract<CompiledTemplate, { type: 'columns' }>;

export function createContextTables(o: GetOutput, c: GetPrintContext, io: IO): GetPrinter {
  const t = o.template?.compiled;
  return o.format.type === 'custom-columns' && t?.type === 'columns' ? columnsPrinter(o, t, io) : tablesPrinter(o, c, io);
}

function tablesPrinter(o: GetOutput, c: GetPrintContext, io: IO): GetPrinter {
  const wide = o.format.type === 'table' && o.format.wide;
  const contexts = new Map<string, { plan: ContextStart; tables: Map<PrintedResource, TableAccumulator> }>();
  /** Each resource's tables over the contexts (keyed by group and resource), in the order first seen. */
  const all = new Map<string, { kindPrefix: string; parts: TableAccumulator[] }>();
  return {
    async start(context, plan) {
      const tables = new Map<PrintedResource, TableAccumulator>();
      for (const r of plan.resources) tables.set(r, new TableAccumulator({ wide, noHeaders: o.noHeaders, showLabels: o.showLabels, labelColumns: o.labelColumns }));
      contexts.set(context, { plan, tables });
    },
    page(context, page, resource) {
      const { plan, tables } = contexts.get(context)!;
      const table = page as Table;
      o.sorter?.sortTable(table);
      tables.get(resource)!.add(withLeadingColumns(table, { context: c.showContext ? context : undefined, withNamespace: plan.withNamespace && resource.mapping.namespaced }));
    },
    done() {},
    settle(context, failed) {
      const s = contexts.get(context);
      contexts.delete(context);
      if (!s || failed) return [];
      for (const [r, acc] of s.tables) {
        const { gvr, gvk } = r.mapping;
        const key = `${gvr.group}/${gvr.resource}`;
        let g = all.get(key);
        if (!g) all.set(key, (g = { kindPrefix: (gvk.group ? `${gvk.kind}.${gvk.group}` : gvk.kind).toLowerCase(), parts: [] }));
        g.parts.push(acc);
      }
      return [];
    },
    end() {
      const withKind = o.showKind || all.size > 1;
      let out = '';
      for (const g of all.values()) {
        const rows = mergeRows(g.parts.map((acc) => acc.cells(withKind ? g.kindPrefix : undefined)), o.noHeaders);
        if (rows.length === 0) continue;
        if (out && !o.noHeaders) out += '\n';
        out += formatColumns(rows, { minWidth: TABWRITER_MIN_WIDTH });
      }
      if (out) io.stdout.write(out);
      else if (c.errors.length === 0 && !c.ignoreNotFound) io.stderr.write('No resources found\n');
    },
  };
}

function columnsPrinter(o: GetOutput, template: Columns, io: IO): GetPrinter {
  const contexts = new Map<string, { columns: ContextColumns; held: Unstructured[] }>();
  const parts: string[][][] = [];
  return {
    async start(context) {
      contexts.set(context, { columns: new ContextColumns(template), held: [] });
    },
    page(context, page) {
      const s = contexts.get(context)!;
      if (o.sorter) s.held.push(...(page as Unstructured[]));
      else s.columns.add(page as Unstructured[]);
    },
    done(context) {
      const s = contexts.get(context)!;
      if (!o.sorter) return;
      o.sorter.sortObjects(s.held);
      for (const i of s.held) s.columns.add([i]);
      s.held = [];
    },
    settle(context, failed) {
      const s = contexts.get(context);
      contexts.delete(context);
      if (!s || failed) return [];
      parts.push(s.columns.rows(context));
      return s.columns.failure === undefined ? [] : [s.columns.failure];
    },
    end() {
      // As a single-context get: the header even when no context had objects.
      if (parts.length > 0) io.stdout.write(renderContextColumns(template, parts, o.noHeaders));
    },
  };
}

/** One context's custom-columns rows. */
export class ContextColumns {
  readonly #printer: CustomColumnsPrinter;
  /** The first row that failed (its error), after which nothing more is added. */
  failure: unknown;

  constructor(template: Columns) {
    this.#printer = new CustomColumnsPrinter(template.columns, { noHeaders: true, templates: template.templates });
  }

  add(items: Iterable<unknown>): void {
    if (this.failure !== undefined) return;
    try {
      this.#printer.addAll(items);
    } catch (e) {
      this.failure = e;
    }
  }

  /** The rows, each with `context` first. */
  rows(context: string): string[][] {
    return this.#printer.lines().map((cells) => [context, ...cells]);
  }
}

/** The one table: CONTEXT and the user's headers (unless noHeaders), then every context's rows. */
export function renderContextColumns(template: Columns, parts: readonly string[][][], noHeaders: boolean): string {
  const header = noHeaders ? [] : [['CONTEXT', ...template.columns.map((c) => c.header)]];
  return formatColumns([...header, ...parts.flat()], { minWidth: CUSTOM_COLUMNS_MIN_WIDTH });
}

/**
 * One table's lines over several contexts: the contexts' lines in order, a context's header left
 * out when it repeats the one above (the same columns), kept when the columns differ.
 */
export function mergeRows(parts: readonly string[][][], noHeaders: boolean): string[][] {
  const rows: string[][] = [];
  let header: string[] | undefined;
  for (const cells of parts) {
    if (cells.length === 0) continue;
    let start = 0;
    if (!noHeaders) {
      const h = cells[0]!;
      if (header && h.length === header.length && h.every((c, i) => c === header![i])) start = 1;
      header = h;
    }
    for (let i = start; i < cells.length; i++) rows.push(cells[i]!);
  }
  return rows;
}
