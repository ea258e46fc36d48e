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
import { createPrinter, readOutput, type ApiResourcesOutput } from '../../printers/index.js';
import { fleetRequest, wantsFleet } from '../fleet.js';
import { selectRows, type RowFilters } from '../../printers/api-resources.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const f = args.flags;
  const output = readOutput('api-resources', f);
  const filters: RowFilters = {
    // As kubectl: an explicit `--api-group=` selects the core group.
    apiGroup: args.explicit.has('api-group') ? String(f['api-group'] ?? '') : undefined,
    namespaced: args.explicit.has('namespaced') ? f.namespaced === true : undefined,
    verbs: list(f.verbs),
    categories: list(f.categories),
    sortBy: f['sort-by'] === 'name' || f['sort-by'] === 'kind' ? f['sort-by'] : undefined,
  };

  // Several contexts (issue 24): ../../fleet/api-resources.ts.
  if (wantsFleet(f, false)) return runFleet(args, ctx, io, filters, output);

  // As kubectl (Invalidate() unless --cached): revalidated with the cached ETags, 304 when unchanged.
  // The TLS handshake overlaps reading the cache (ETags) and loading the printer.
  if (f.cached !== true) await ctx.preconnect();
  const discovery = await ctx.discovery();
  if (f.cached !== true) discovery.invalidate();
  const snapshot = await discovery.snapshot({ cachedOnly: f.cached === true }).catch(noCache);
  const printer = await createPrinter(output, undefined, io);
  printer.page(selectRows(snapshot, filters));
  printer.end();

  for (const failure of snapshot.failures) io.stderr.write(`Warning: ${failure.message}\n`);
  if (f.cached === true && discovery.pastTtl?.()) io.stderr.write(`Warning: ${CACHED_PAST_TTL}\n`);
  // Cache files are written after the answer is printed; they must be complete before the process exits.
  await discovery.flush?.();
  if (f.strict === true && snapshot.failures.length > 0) {
    throw new KdynError(`unable to retrieve the complete list of server APIs: ${snapshot.failures.length} group-version(s) failed or stale`);
  }
  return 0;
}

async function runFleet(args: ParsedArgs, ctx: Context, io: IO, filters: RowFilters, output: ApiResourcesOutput): Promise<number> {
  const fleet = await fleetRequest(args, ctx, { namespaces: false });
  const { fleetApiResources } = await import('../../fleet/api-resources.js');
  const r = await fleetApiResources(fleet.contexts, fleet.open, {
    filters,
    cachedOnly: args.flags.cached === true,
    output: output.format,
    noHeaders: output.noHeaders,
    concurrency: fleet.concurrency,
    stdout: io.stdout,
    stderr: io.stderr,
    onError: fleet.report,
    snapshotError: noCache,
  });
  return r.failed > 0 || (args.flags.strict === true && r.partial > 0) ? 1 : 0;
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
