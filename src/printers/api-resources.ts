/**
 * `api-resources` rows and their output formats, as kubectl's `pkg/cmd/apiresources/apiresources.go`:
 * one row per group resource from its preferred version (ServerPreferredResources), subresources and
 * resources without verbs skipped, filters, a stable sort by group (or name/kind) then name. The
 * rows' `-o json` and `-o yaml` are get's encoders (./json.ts, ./yaml.ts).
 */
import type { IO } from '../core/io.js';
import type { ApiResourcesOutput, ResourceRow, RowPrintContext, RowPrinter } from './types.js';
import { formatColumns } from './columns.js';
import { toJSON } from './json.js';
import { prefixLines } from './envelopes.js';

/**
 * What the rows are made of: discovery's groups and each group-version's resources (a
 * DiscoverySnapshot fits; printers do not import discovery).
 */
export interface ResourceSource {
  /** Groups in server order, the core group ('') first; versions in preference order. */
  groups: ReadonlyArray<{ name: string; versions: readonly string[]; preferredVersion: string }>;
  /** Resources per group-version key (`v1`, `apps/v1`), subresources included as `parent/sub`. */
  resources: ReadonlyMap<string, ReadonlyArray<Omit<ResourceRow, 'apiVersion' | 'group'>>>;
}

export type { ResourceRow } from './types.js';

export interface RowFilters {
  /** Exact group; '' selects the core group (undefined: no filter). */
  apiGroup?: string | undefined;
  /** Applied only when the flag was given explicitly. */
  namespaced?: boolean | undefined;
  verbs?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  sortBy?: 'name' | 'kind' | undefined;
}

/** client-go's ServerPreferredResources: a group resource comes from the preferred version when served there. */
export function preferredRows(s: ResourceSource): ResourceRow[] {
  const chosen = new Map<string, { version: string; row: ResourceRow }>();
  // Lists in discovery order; within a list, rows in server order (kubectl's map order does not matter after sorting).
  const order: string[] = [];
  for (const g of s.groups) {
    for (const version of g.versions) {
      const gv = g.name ? `${g.name}/${version}` : version;
      const list = s.resources.get(gv);
      if (!list) continue;
      for (const r of list) {
        if (r.name.includes('/')) continue;
        const key = `${g.name}\u0000${r.name}`;
        if (chosen.has(key) && version !== g.preferredVersion) continue;
        if (!chosen.has(key)) order.push(key);
        chosen.set(key, {
          version,
          row: {
            name: r.name,
            shortNames: r.shortNames,
            apiVersion: gv,
            group: g.name,
            namespaced: r.namespaced,
            kind: r.kind,
            verbs: r.verbs,
            categories: r.categories,
            singularName: r.singularName,
          },
        });
      }
    }
  }
  // Regroup by the selected group-version, in list order, as kubectl's result lists are.
  const byGV = new Map<string, ResourceRow[]>();
  for (const g of s.groups) for (const v of g.versions) byGV.set(g.name ? `${g.name}/${v}` : v, []);
  for (const key of order) {
    const { row } = chosen.get(key)!;
    byGV.get(row.apiVersion)?.push(row);
  }
  return [...byGV.values()].flat();
}

export function selectRows(s: ResourceSource, f: RowFilters): ResourceRow[] {
  const rows = preferredRows(s).filter((r) => {
    if (r.verbs.length === 0) return false;
    if (f.apiGroup !== undefined && f.apiGroup !== r.group) return false;
    if (f.namespaced !== undefined && f.namespaced !== r.namespaced) return false;
    if (f.verbs?.length && !f.verbs.every((v) => r.verbs.includes(v))) return false;
    if (f.categories?.length && !f.categories.every((c) => r.categories.includes(c))) return false;
    return true;
  });
  const key = (r: ResourceRow) => (f.sortBy === 'name' ? r.name : f.sortBy === 'kind' ? r.kind : r.group);
  // Array.prototype.sort is stable; Go compares strings bytewise, so compare code points, not locale.
  return rows.sort((a, b) => cmp(key(a), key(b)) || cmp(a.name, b.name));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatTable(rows: readonly ResourceRow[], wide: boolean, noHeaders: boolean): string {
  return formatColumns(tableCells(rows, wide, noHeaders), { minWidth: 6 });
}

/** The table's cells, header first (unless noHeaders). */
export function tableCells(rows: readonly ResourceRow[], wide: boolean, noHeaders: boolean): string[][] {
  const table: string[][] = [];
  if (!noHeaders) table.push(wide ? ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'] : ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
  for (const r of rows) {
    const cells = [r.name, r.shortNames.join(','), r.apiVersion, String(r.namespaced), r.kind];
    if (wide) cells.push(r.verbs.join(','), r.categories.join(','));
    table.push(cells);
  }
  return table;
}

/** `-o name`: `name[.group]`, no header. */
export function formatNames(rows: readonly ResourceRow[]): string {
  let out = '';
  for (const r of rows) out += r.group ? `${r.name}.${r.group}\n` : `${r.name}\n`;
  return out;
}

/**
 * The output module's API resources mode: the table (or -o wide), `-o name`, or the rows as data
 * (`-o json|yaml`, for scripts). With the context shown (several contexts): one table with a
 * CONTEXT column first, `-o name` as `CONTEXT/name[.group]`, `-o json|yaml` one array of rows, each
 * with its `context` (`jq '.[] | select(.context == "east")'`), written at the end.
 */
export async function createRowPrinter(o: ApiResourcesOutput, c: RowPrintContext, io: IO): Promise<RowPrinter> {
  const toYAML = o.format === 'yaml' ? (await import('./yaml.js')).toYAML : undefined;
  const encode = (data: unknown) => (toYAML ? toYAML(data) : toJSON(data));
  if (c.showContext) {
    const perContext: Array<{ context: string; rows: readonly ResourceRow[] }> = [];
    return {
      page: (rows, context) => void perContext.push({ context, rows }),
      end: () => io.stdout.write(renderContexts(perContext, o, encode)),
    };
  }
  return {
    page(rows) {
      if (o.format === 'name') io.stdout.write(formatNames(rows));
      else if (o.format === 'json' || toYAML) io.stdout.write(encode(rows));
      else io.stdout.write(formatTable(rows, o.format === 'wide', o.noHeaders));
    },
    end() {},
  };
}

function renderContexts(perContext: ReadonlyArray<{ context: string; rows: readonly ResourceRow[] }>, o: ApiResourcesOutput, encode: (data: unknown) => string): string {
  if (o.format === 'name') return perContext.map((c) => prefixLines(formatNames(c.rows), c.context)).join('');
  if (o.format === 'json' || o.format === 'yaml') return encode(perContext.flatMap((c) => c.rows.map((r) => ({ context: c.context, ...r }))));
  if (perContext.length === 0) return '';
  const wide = o.format === 'wide';
  const table: string[][] = [];
  for (const c of perContext) for (const row of tableCells(c.rows, wide, true)) table.push([c.context, ...row]);
  if (!o.noHeaders) table.unshift(['CONTEXT', ...tableCells([], wide, false)[0]!]);
  return formatColumns(table, { minWidth: 6 });
}
