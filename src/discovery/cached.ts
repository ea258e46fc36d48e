/**
 * The discovery cache: kubectl's disk cache, shared with kubectl, plus kdyn's own combined file, in
 * front of live discovery (client.ts). This comment is the map of the whole cache.
 *
 * Two formats of the same answer, under a cache root (`--cache-dir`, else $KUBECACHEDIR, else
 * ~/.kube/cache; cache-dir.ts), one directory per server:
 * 1. kubectl's layout (layout.ts), `<root>/discovery/<host>/`: servergroups.json plus one
 *    `<group>/<version>/serverresources.json` per group-version. kubectl reads and writes it; kdyn
 *    writes it too, so the two tools share one cache.
 * 2. kdyn's combined file (combined.ts), `<root>/kdyn/<host>/discovery.json`: the whole answer in one
 *    file (a header line with the aggregated documents' ETags and a lookup index, then a line per
 *    group), so a warm run reads one file, or only the lines of the groups a name needs. Only kdyn
 *    reads or writes it.
 *
 * Terms used below and in the code:
 * - within the TTL (`withinTtl`): a file's mtime is less than `ttlMs` before the injected clock's now;
 * - layout newer (`layoutNewer`): servergroups.json is newer than the combined file, in whole
 *   milliseconds (disk.ts newerMs), so kubectl rewrote its files after kdyn last wrote: kubectl's
 *   layout is the newer answer;
 * - `fresh()` (client-go's Fresh()) is NOT about the TTL: it says everything in the last snapshot was
 *   fetched from the server during this process (the RESTMapper refetches on a miss only when not).
 *
 * Which answers `snapshot()` (the first that applies):
 * - the snapshot already taken in this process, until `invalidate()`;
 * - the combined file, when it is within the TTL and not layout-newer (group-versions that had failed
 *   when it was written are fetched again: errors are never cached);
 * - kubectl's layout, when there is no valid combined file or the layout is newer, and servergroups.json
 *   is within the TTL (group-versions whose files are missing or expired are fetched);
 * - the server otherwise (also after `invalidate()`), revalidating aggregated documents with the
 *   combined file's ETags (If-None-Match): a 304 costs no download. An expired combined file that is
 *   not layout-newer goes to the server, not to the layout (which is then at least as old).
 * `lookup(token)` reads the combined file only, under the same TTL and layout-newer rules, and only
 * the groups its index lists for the token. `snapshot({ cachedOnly: true })` (`--cached`) ignores the
 * TTL: the combined file unless the layout is newer, else the layout, else an error; never the server.
 *
 * The policy is freshness.ts, the readers of each answer sources.ts, the writes cache-writes.ts; this
 * file holds the process's state (the snapshot taken, the request in flight, fresh()) and runs them.
 *
 * Who writes what. kdyn writes after the answer is returned, on a macrotask, chained (`later()`;
 * `flush()` waits), never an empty answer, and every file atomically (disk.ts: temp file, rename):
 * - after a server answer (`writeFetched`): kubectl's layout, then the combined file, so the combined
 *   file is never older than the layout it summarises. With `writeBehind` (the CLI) and more layout
 *   files than its threshold: only the combined file, dated in whole seconds, then a detached process
 *   (cli/layout-writer.ts, write-behind.ts) writes the layout from it, each file dated with the
 *   combined file's mtime, so kdyn's own layout files never count as layout-newer;
 * - after a 304 for both documents (`renewAfterNotModified`): both files' mtimes move to now
 *   (servergroups.json first); if the layout is newer, only the combined file is rewritten (kubectl's
 *   files stay); if kubectl's files are gone, both are written;
 * - after an answer from kubectl's layout, or from the combined file with gaps filled (`writeSummary`):
 *   the group-versions fetched to fill gaps into the layout, then the combined file as a summary,
 *   dated as the data it holds (servergroups.json's mtime, or its own old one), not as now;
 * - after `invalidateStored(groups)` (kdyn wrote a CRD or an APIService; invalidation.ts,
 *   `expire`): the combined file, servergroups.json and the groups' serverresources.json dated at the
 *   epoch, past every TTL, after the writes already scheduled; nothing deleted (the ETags stay);
 * - kubectl writes only its layout (and reads only its layout).
 *
 * Who revalidates regardless of the TTL (invalidate() before snapshot()): `api-resources` (kubectl's
 * rule), `types --all`, a category expanded from the cache (restmapper/deferred.ts); `--cached`
 * answers alone, and pastTtl() then says whether its files were past the TTL.
 */
import { KdynError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Transport } from '../transport/types.js';
import type { CachedDiscovery, DiscoverySnapshot, SnapshotOptions } from './types.js';
import type { CachePaths } from './cache-dir.js';
import type { DiskStore } from './disk.js';
import { indexedSnapshot, type GroupIndex } from './combined.js';
import type { WriteBehind } from './write-behind.js';
import { Freshness, NO_COMBINED, type CacheLocation, type CombinedRead, type CombinedState } from './freshness.js';
import { CacheWrites } from './cache-writes.js';

export { DEFAULT_WRITE_BEHIND_THRESHOLD, type WriteBehind, type WriteBehindJob } from './write-behind.js';
import { DEFAULT_CONCURRENCY, type DiscoveryLimits } from './client.js';
import { dropUnsafeNames } from './names.js';
import { cacheLocator, fetchLive, fromCombinedFile, fromDiskOnly, fromLayout, keepLive, type Sources } from './sources.js';

/**
 * `snapshot({ cachedOnly: true })` found nothing on disk. The message names the library's option;
 * the CLI words it for `--cached` (`server` and `where` are for that).
 */
export class NoCachedDiscoveryError extends KdynError {
  constructor(
    readonly server: string,
    readonly where: string,
  ) {
    super(`no cached discovery for ${server} in ${where} (a snapshot() without cachedOnly fills it)`);
  }
}

export interface CachedDiscoveryOptions {
  transport: Transport;
  /** The kubeconfig's server URL (kubectl's `config.Host`), which names the cache directory. */
  server: string;
  /** `--cache-dir`; undefined → $KUBECACHEDIR → ~/.kube/cache. */
  cacheDir?: string | undefined;
  /** How long cached discovery is fresh; 0 = always ask the server (revalidating). */
  ttlMs: number;
  env: Record<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  concurrency?: number;
  /** Discovery requests' timeout (when there is no --request-timeout) and size limit; kubectl's 32 s and 64 MiB by default. */
  limits?: DiscoveryLimits;
  /** Hand big kubectl-layout writes to a background process; unset (library default): write them all before flush() resolves. */
  writeBehind?: WriteBehind | undefined;
  /** The file operations over the cache root (tests count the files a run opens); a DiskStore by default. */
  store?: ((root: string) => DiskStore) | undefined;
  /**
   * Builds a lookup index (key -> the groups a lookup of it needs) stored in the combined file, so
   * `lookup(key)` reads only those groups' lines. The RESTMapper owns the keys
   * (restmapper/name-index.ts buildNameIndex; src/connect.ts passes it). Without it, lookup() answers
   * nothing and every run reads the whole snapshot.
   */
  index?: ((s: DiscoverySnapshot) => GroupIndex | undefined) | undefined;
}

export interface DiskCachedDiscovery extends CachedDiscovery {
  /** Resolves when every cache write started so far is on disk (never rejects). */
  flush(): Promise<void>;
  /** The cache locations, once resolved (undefined when caching is impossible). */
  paths(): Promise<CachePaths | undefined>;
}

export function createCachedDiscovery(opts: CachedDiscoveryOptions): DiskCachedDiscovery {
  const { server, clock, logger } = opts;
  const policy = new Freshness(opts.ttlMs, clock);
  const writes = new CacheWrites({ server, clock, logger, writeBehind: opts.writeBehind, index: opts.index });
  const sources: Sources = { transport: opts.transport, server, policy, writes, concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY, limits: opts.limits };
  const location = cacheLocator(opts);
  let memo: DiscoverySnapshot | undefined;
  /** What fresh() reports: the last snapshot came from the server in this process. */
  let fromServer = false;
  let invalidated = false;
  /** The last cachedOnly answer came from files past the TTL (or marked stale by invalidateStored). */
  let cachedPastTtl = false;
  let inflight: Promise<DiscoverySnapshot> | undefined;
  /** The combined file read by lookup(), kept for the snapshot() that usually follows (read once). */
  let preread: Promise<CombinedRead | undefined> | undefined;

  async function combinedState(loc: CacheLocation): Promise<CombinedState> {
    const pre = preread;
    preread = undefined;
    return Freshness.state(await (pre ?? policy.readCombined(loc)), server);
  }

  async function load(): Promise<DiscoverySnapshot> {
    const loc = await location();
    const state: CombinedState = loc ? await combinedState(loc) : NO_COMBINED;
    if (loc && !invalidated) {
      const cached = (await fromCombinedFile(sources, loc, state)) ?? (await fromLayout(sources, loc, state));
      if (cached) {
        fromServer = false;
        return cached;
      }
    }
    const live = await fetchLive(sources, state);
    fromServer = true;
    invalidated = false;
    return keepLive(sources, loc, state, live);
  }

  /** `--cached`: whatever the disk holds, whatever its age; never the server. */
  async function fromCacheOnly(): Promise<DiscoverySnapshot> {
    const loc = await location();
    const found = loc && (await fromDiskOnly(sources, loc, await combinedState(loc)));
    if (!found) throw new NoCachedDiscoveryError(server, loc ? loc.paths.kubectlDir : 'the cache directory');
    cachedPastTtl = found.pastTtl;
    return found.snapshot;
  }

  return {
    snapshot(options?: SnapshotOptions): Promise<DiscoverySnapshot> {
      if (memo) return Promise.resolve(memo);
      if (options?.cachedOnly) return fromCacheOnly().then((s) => (memo = s));
      return (inflight ??= load().then(
        (s) => {
          inflight = undefined;
          return (memo = s);
        },
        (e: unknown) => {
          inflight = undefined;
          throw e;
        },
      ));
    },
    async lookup(token: string): Promise<DiscoverySnapshot | undefined> {
      if (memo || inflight || invalidated) return undefined;
      const loc = await location();
      if (!loc) return undefined;
      const read = await (preread ??= policy.readCombined(loc));
      // Only where snapshot() would answer from the combined file alone (the same policy).
      if (!read || !policy.combinedAnswers(read)) return undefined;
      const part = indexedSnapshot(read.text, server, token);
      return part && dropUnsafeNames(part);
    },
    invalidate(): void {
      memo = undefined;
      preread = undefined;
      invalidated = true;
      fromServer = false;
    },
    invalidateStored(groups: readonly string[]): void {
      this.invalidate();
      // Marked after the writes already scheduled (a refresh during the run), so nothing dates them fresh again.
      writes.expire(location(), groups);
    },
    fresh: () => fromServer,
    pastTtl: () => cachedPastTtl,
    flush: () => writes.flush(),
    paths: async () => (await location())?.paths,
  };
}
