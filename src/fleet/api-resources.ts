/**
 * `api-resources` over several contexts (issue 24): each context's discovery (its own cache, as
 * `--context NAME` alone), the rows of every context in one table with a CONTEXT column first;
 * `-o name` as `CONTEXT/name[.group]`; `-o json|yaml` one array of rows, each with its `context`
 * (`jq '.[] | select(.context == "east")'`). A context whose discovery failed is reported by
 * `onError`; partly failed discovery gives warnings naming the context, as alone.
 */
import type { Output } from '../core/io.js';
import type { CachedDiscovery, DiscoverySnapshot } from '../discovery/types.js';
import { formatNames, selectRows, tableCells, type ResourceRow, type RowFilters } from '../printers/api-resources.js';
import { formatColumns } from '../printers/columns.js';
import { fanOut } from './fanout.js';
import { prefixLines } from './output.js';

export interface DiscoveryMember {
  discovery(): Promise<CachedDiscovery>;
  flush?(): Promise<void>;
  close(): void;
}

export interface FleetApiResourcesOptions {
  filters: RowFilters;
  cachedOnly: boolean;
  output: '' | 'wide' | 'name' | 'json' | 'yaml';
  noHeaders: boolean;
  concurrency?: number;
  stdout: Output;
  stderr: Output;
  /** A context whose discovery failed entirely. */
  onError(context: string, error: unknown): void;
  /** Turns the snapshot error of --cached without a cache into the command's error. */
  snapshotError?(e: unknown): Promise<never>;
}

/** Resolves to the number of contexts that failed, and the number of group-versions that failed or were stale. */
export async function fleetApiResources(contexts: readonly string[], open: (context: string) => DiscoveryMember, o: FleetApiResourcesOptions): Promise<{ failed: number; partial: number }> {
  const perContext: Array<{ context: string; rows: ResourceRow[] }> = [];
  let failed = 0;
  let partial = 0;
  await fanOut<DiscoveryMember, DiscoverySnapshot>(
    contexts,
    async (m) => {
      const d = await m.discovery();
      if (!o.cachedOnly) d.invalidate(); // revalidated, as one context's api-resources
      return d.snapshot({ cachedOnly: o.cachedOnly }).catch((e: unknown) => (o.snapshotError ? o.snapshotError(e) : Promise.reject(e)));
    },
    {
      open,
      close: async (m) => {
        await m.flush?.(); // cache files are written after the answer: complete before the exit
        m.close();
      },
      concurrency: o.concurrency,
      onResult: (r) => {
        if (!r.ok) {
          failed++;
          return o.onError(r.context, r.error);
        }
        perContext.push({ context: r.context, rows: selectRows(r.value, o.filters) });
        for (const f of r.value.failures) o.stderr.write(`Warning: context ${JSON.stringify(r.context)}: ${f.message}\n`);
        partial += r.value.failures.length;
      },
    },
  );
  o.stdout.write(await render(perContext, o));
  return { failed, partial };
}

async function render(perContext: Array<{ context: string; rows: ResourceRow[] }>, o: FleetApiResourcesOptions): Promise<string> {
  if (o.output === 'name') return perContext.map((c) => prefixLines(formatNames(c.rows), c.context)).join('');
  if (o.output === 'json' || o.output === 'yaml') {
    const all = perContext.flatMap((c) => c.rows.map((r) => ({ context: c.context, ...r })));
    // The single-context encoders (get's JSON and YAML printers).
    return o.output === 'json' ? (await import('../printers/json.js')).toJSON(all) : (await import('../printers/yaml.js')).toYAML(all);
  }
  if (perContext.length === 0) return '';
  const wide = o.output === 'wide';
  const table: string[][] = [];
  for (const c of perContext) {
    const cells = tableCells(c.rows, wide, true);
    for (const row of cells) table.push([c.context, ...row]);
  }
  if (!o.noHeaders) table.unshift(['CONTEXT', ...tableCells([], wide, false)[0]!]);
  return formatColumns(table, { minWidth: 6 });
}
