/**
 * `kdyn api-resources`: kubectl's command over kdyn's cached discovery. As kubectl, it revalidates
 * discovery on every run (kubectl's Invalidate() unless --cached): the cached aggregated documents'
 * ETags go out as If-None-Match, a 304 costs no download and rewrites no file; `--cached` answers from
 * the disk with zero requests. Differences from kubectl, on purpose: `-o json|yaml` print the rows
 * as data (with get's JSON and YAML printers), and a partly failed discovery (a failed or stale
 * group-version, in either discovery mode) prints every available row, one warning per
 * group-version, and exits 0 (1 with --strict).
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { KdynError } from '../../core/errors.js';
import { createPrinter } from '../../printers/index.js';
import { selectRows, type RowFilters } from '../../printers/api-resources.js';
import type { ContextResult } from '../../fleet/fanout.js';
import { visitApiResources, type ContextDiscovery } from '../../fleet/api-resources.js';
import { fleetRequest, wantsFleet } from '../fleet.js';
import { apiResourcesPrintOptions } from '../print-flags.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const f = args.flags;
  const output = apiResourcesPrintOptions(f);
  const filters: RowFilters = {
    // As kubectl: an explicit `--api-group=` selects the core group.
    apiGroup: args.explicit.has('api-group') ? String(f['api-group'] ?? '') : undefined,
    namespaced: args.explicit.has('namespaced') ? f.namespaced === true : undefined,
    verbs: list(f.verbs),
    categories: list(f.categories),
    sortBy: f['sort-by'] === 'name' || f['sort-by'] === 'kind' ? f['sort-by'] : undefined,
  };
  // Several contexts (issue 24): which, and how a context's error is reported.
  const fleet = wantsFleet(f, false) ? await fleetRequest(args, ctx, { namespaces: false }) : undefined;
  const cachedOnly = f.cached === true;

  const results: Array<ContextResult<ContextDiscovery>> = [];
  // One context: the printer loads while the TLS handshake runs.
  const made = createPrinter(output, { showContext: fleet !== undefined }, io);
  const printer = fleet && (await made);
  let failed = 0;
  let partial = 0;
  await visitApiResources(fleet?.contexts ?? [''], fleet?.open ?? (() => ctx), {
    cachedOnly,
    concurrency: fleet?.concurrency,
    snapshotError: noCache,
    // The command's own context is flushed and closed by main.
    close: async (m) => {
      if (m === ctx) return;
      await m.flush?.();
      m.close();
    },
  }, (r) => {
    if (!fleet || !printer) return void results.push(r);
    if (!r.ok) {
      failed++;
      return fleet.report(r.context, r.error);
    }
    printer.page(selectRows(r.value.snapshot, filters), r.context);
    for (const failure of r.value.snapshot.failures) io.stderr.write(`Warning: context ${JSON.stringify(r.context)}: ${failure.message}\n`);
    partial += r.value.snapshot.failures.length;
  });
  if (fleet) {
    printer!.end();
    return failed > 0 || (f.strict === true && partial > 0) ? 1 : 0;
  }

  const r = results[0]!;
  if (!r.ok) throw r.error;
  const { snapshot, discovery } = r.value;
  const rows = await made;
  rows.page(selectRows(snapshot, filters), r.context);
  rows.end();
  for (const failure of snapshot.failures) io.stderr.write(`Warning: ${failure.message}\n`);
  if (cachedOnly && discovery.pastTtl?.()) io.stderr.write(`Warning: ${CACHED_PAST_TTL}\n`);
  // Cache files are written after the answer is printed; they must be complete before the process exits.
  await discovery.flush?.();
  if (f.strict === true && snapshot.failures.length > 0) {
    throw new KdynError(`unable to retrieve the complete list of server APIs: ${snapshot.failures.length} group-version(s) failed or stale`);
  }
  return 0;
}

/** `--cached` answered from files past the TTL (or invalidated after kdyn wrote a CRD or APIService): said, never silent. */
export const CACHED_PAST_TTL = 'the discovery cache is past its TTL (--cache-ttl) or was invalidated after a change of CRDs or APIServices: this list may be stale (run without --cached to refresh it)';

/** --cached without a cache: the command's one-line error. */
async function noCache(e: unknown): Promise<never> {
  const { NoCachedDiscoveryError } = await import('../../discovery/cached.js');
  if (e instanceof NoCachedDiscoveryError) throw new KdynError(`no cached discovery for ${e.server} in ${e.where} (run once without --cached to fill it)`);
  throw e;
}

function list(v: unknown): string[] | undefined {
  if (Array.isArray(v)) return v.filter((s): s is string => typeof s === 'string' && s !== '');
  if (typeof v === 'string' && v) return v.split(',');
  return undefined;
}
