/**
 * How output over several contexts says where each object lives (issue 24; docs/fleet.md), as pure
 * envelopes around what one context prints; the decorator (./context.ts) applies them, and library
 * users build their own fleet output with them:
 * - tables: a CONTEXT column first (then NAMESPACE with -A or several namespaces), added to the
 *   server's Table as ordinary columns so every table printer keeps working;
 * - `-o name`: `CONTEXT/kind[.group]/name`;
 * - `-o jsonl`: `{"context":C,"object":{...}}` per line (watch: `{"context":C,"type":T,"object":{...}}`);
 * - `-o json|yaml` (and templates): one kubectl List per context, with a `context` field next to `items`;
 * - a context's error: one stderr line naming it.
 */
import type { Table, TableColumnDefinition, TableRow } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';

export const CONTEXT_COLUMN: TableColumnDefinition = { name: 'Context', type: 'string', format: '', description: 'The kubeconfig context the object was read from', priority: 0 };
export const NAMESPACE_COLUMN: TableColumnDefinition = { name: 'Namespace', type: 'string', format: '', description: 'The object\'s namespace', priority: 0 };

/**
 * The Table with columns in front: CONTEXT (when `context` is given) and NAMESPACE (with
 * `withNamespace`, from each row's object metadata, empty for cluster-scoped objects). A Table
 * without column definitions (a watch event after the first) gets only the cells.
 */
export function withLeadingColumns(table: Table, o: { context?: string; withNamespace?: boolean }): Table {
  const defs: TableColumnDefinition[] = [];
  if (o.context !== undefined) defs.push(CONTEXT_COLUMN);
  if (o.withNamespace) defs.push(NAMESPACE_COLUMN);
  if (defs.length === 0) return table;
  const rows = (table.rows ?? []).map((r): TableRow => {
    const lead: unknown[] = [];
    if (o.context !== undefined) lead.push(o.context);
    if (o.withNamespace) lead.push(namespaceOf(r.object));
    return { ...r, cells: [...lead, ...(r.cells ?? [])] };
  });
  const columns = table.columnDefinitions && table.columnDefinitions.length > 0 ? [...defs, ...table.columnDefinitions] : table.columnDefinitions;
  return { ...table, columnDefinitions: columns, rows };
}

function namespaceOf(obj: Unstructured | undefined): string {
  const ns = obj && typeof obj === 'object' ? obj.metadata?.namespace : undefined;
  return typeof ns === 'string' ? ns : '';
}

/** `-o name` lines (each ending in a newline) with `context/` in front of each. */
export function prefixLines(text: string, context: string): string {
  if (!text) return text;
  return text.replace(/^(?=.)/gm, `${context}/`);
}

/** One `-o jsonl` line of a fleet get: the object wrapped with its context. */
export function jsonlRecord(context: string, object: Unstructured): string {
  return `{"context":${JSON.stringify(context)},"object":${JSON.stringify(object)}}\n`;
}

/** One `-o jsonl` line of a fleet watch: the event wrapped with its context. */
export function jsonlEvent(context: string, type: string, object: unknown): string {
  return `{"context":${JSON.stringify(context)},"type":${JSON.stringify(type)},"object":${JSON.stringify(object)}}\n`;
}

/** A context's objects as kubectl's List, with the context next to its items. */
export function contextList(context: string, items: Unstructured[]): Unstructured {
  return { apiVersion: 'v1', context, items, kind: 'List', metadata: { resourceVersion: '' } } as Unstructured;
}

/**
 * The stderr line for a context that failed: `error: context "east": <what kdyn would say alone>`
 * (`line` as the single-context command writes it, `error: ` and the newline taken off).
 */
export function contextErrorLine(context: string, line: string): string {
  return `error: context ${JSON.stringify(context)}: ${line.replace(/^error: /, '').replace(/\n+$/, '').split('\n')[0]}\n`;
}
