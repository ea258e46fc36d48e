/**
 * kubectl's `-o custom-columns=HEADER:PATH,...` and `-o custom-columns-file=FILE`
 * (k8s.io/cli-runtime/pkg/printers/customcolumn.go).
 *
 *   const p = new CustomColumnsPrinter(parseCustomColumnsSpec('NAME:.metadata.name,RV:.metadata.resourceVersion'));
 *   for await (const page of pages) p.addAll(page.items);   // keeps only the cell strings
 *   io.stdout.write(p.render());
 *
 * Cells: every value the path finds, formatted as Go's `%v` (`map[a:b]`, `[x y]`, `<nil>`), joined
 * by `,`; `<none>` when nothing is found. Columns are aligned like kubectl's tabwriter.
 */
import { KdynError } from '../core/errors.js';
import { formatColumns } from './columns.js';
import { compileJSONPath, formatGoValue, JSONPathError, relaxedJSONPathExpression, type JSONPathTemplate } from '../jsonpath/index.js';

export interface CustomColumn {
  header: string;
  /** Full JSONPath template, e.g. `{.metadata.name}` (relaxed forms are normalised by the parsers). */
  fieldSpec: string;
}

/** A custom-columns spec or template that kubectl would reject; `message` is kubectl's text. */
export class CustomColumnsError extends KdynError {}

/** Parses `NAME:.metadata.name,RSRC:.metadata.resourceVersion` (the value of `-o custom-columns=`). */
export function parseCustomColumnsSpec(spec: string): CustomColumn[] {
  if (spec.length === 0) throw new CustomColumnsError('custom-columns format specified but no custom columns given');
  return spec.split(',').map((part) => {
    const i = part.indexOf(':');
    if (i < 0) throw new CustomColumnsError(`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`);
    return { header: part.slice(0, i), fieldSpec: relaxed(part.slice(i + 1)) };
  });
}

/**
 * Parses a custom-columns file (the content of `-o custom-columns-file=FILE`): a line of headers
 * and a line of JSONPath expressions, both whitespace separated; further lines are ignored.
 */
export function parseCustomColumnsTemplate(text: string): CustomColumn[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (text.length === 0) {
    throw new CustomColumnsError('invalid template, missing header line. Expected format is one line of space separated headers, one line of space separated column specs.');
  }
  if (lines.length < 2 || (lines.length === 2 && lines[1] === '')) {
    throw new CustomColumnsError('invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.');
  }
  const headers = fields(lines[0]!);
  const specs = fields(lines[1]!);
  if (headers.length !== specs.length) {
    throw new CustomColumnsError(`number of headers (${headers.length}) and field specifications (${specs.length}) don't match`);
  }
  return headers.map((header, i) => ({ header, fieldSpec: relaxed(specs[i]!) }));
}

function fields(line: string): string[] {
  return line.split(/[\t\n\v\f\r \u0085\u00a0]+/).filter((f) => f !== '');
}

function relaxed(expr: string): string {
  try {
    return relaxedJSONPathExpression(expr);
  } catch (e) {
    throw new CustomColumnsError((e as Error).message);
  }
}

/** printers.GetNewTabWriter: minwidth 6, padding 3. */
export const CUSTOM_COLUMNS_MIN_WIDTH = 6;

/**
 * Collects custom-columns rows object by object (page by page) and renders them aligned.
 * Only the cell strings are kept, never the objects.
 */
export class CustomColumnsPrinter {
  private templates: JSONPathTemplate[] | undefined;
  private readonly rows: string[][] = [];

  constructor(
    readonly columns: readonly CustomColumn[],
    private readonly options: { noHeaders?: boolean; templates?: JSONPathTemplate[] } = {},
  ) {
    this.templates = options.templates;
  }

  /**
   * Adds one object's row. Throws CustomColumnsError with kubectl's message for a column path
   * that does not parse or fails on this object; render() then still returns what kubectl had
   * printed before its error (the header and the earlier rows).
   */
  add(obj: unknown): void {
    this.templates ??= compileColumns(this.columns);
    try {
      this.rows.push(this.templates.map((t) => cell(t.findResults(obj))));
    } catch (e) {
      throw e instanceof JSONPathError ? new CustomColumnsError(e.reason) : e;
    }
  }

  addAll(objs: Iterable<unknown>): void {
    for (const o of objs) this.add(o);
  }

  /** Number of object rows collected so far. */
  get rowCount(): number {
    return this.rows.length;
  }

  /**
   * Headers (unless noHeaders) and every row, aligned. kubectl prints the header even for an empty
   * list (`get -o custom-columns=...` with no objects prints just the header line, exit 0).
   */
  render(): string {
    return formatColumns(this.lines(), { minWidth: CUSTOM_COLUMNS_MIN_WIDTH });
  }

  /** The header (unless noHeaders) and every row, as cells, unaligned (a fleet aligns several contexts' at once). */
  lines(): string[][] {
    return this.options.noHeaders ? this.rows : [this.columns.map((c) => c.header), ...this.rows];
  }
}

/** Each column's path compiled; a path that does not parse throws CustomColumnsError with kubectl's message. */
export function compileColumns(columns: readonly CustomColumn[]): JSONPathTemplate[] {
  try {
    return columns.map((c) => compileJSONPath(c.fieldSpec));
  } catch (e) {
    throw e instanceof JSONPathError ? new CustomColumnsError(e.reason) : e;
  }
}

function cell(groups: unknown[][]): string {
  const values: string[] = [];
  if (groups.length === 0 || groups[0]!.length === 0) values.push('<none>');
  for (const g of groups) for (const v of g) values.push(formatGoValue(v));
  return values.join(',');
}
