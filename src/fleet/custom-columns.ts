/**
 * `-o custom-columns` over several contexts (issue 24): the user's columns with CONTEXT in front,
 * one table over every context (rows grouped by context in selection order, one header). Each
 * context's rows are collected as a single-context get collects them (../printers/custom-columns.ts):
 * a row whose path fails on its object ends that context's rows, the ones before it are kept, and the
 * failure is that context's error. Only cells are kept, never the objects.
 */
import type { CompiledTemplate } from '../printers/template.js';
import { CUSTOM_COLUMNS_MIN_WIDTH, CustomColumnsPrinter } from '../printers/custom-columns.js';
import { formatColumns } from '../printers/columns.js';

type Columns = Extract<CompiledTemplate, { type: 'columns' }>;

/** One context's rows. */
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
