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
 * - kubectl writes only its layout (and reads only its layout).
 */
import { KdynError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Transport } from '../transport/types.js';
import type { CachedDiscovery, DiscoverySnapshot, SnapshotOptions } from './types.js';
import { cachePaths, resolveCacheRoot, type CachePaths } from './cache-dir.js';
import { DiskStore, newerMs, withinSameMs } from './disk.js';
import { combinedLayoutDigest, combinedSnapshot, formatCombined, indexedSnapshot, parseCombined, type CombinedCache } from './combined.js';
import { layoutDigest, layoutFiles, readLayout, serverGroupsText, writeLayout } from './layout.js';
import { DEFAULT_WRITE_BEHIND_THRESHOLD, wholeSeconds, type WriteBehind } from './write-behind.js';

export { DEFAULT_WRITE_BEHIND_THRESHOLD, type WriteBehind, type WriteBehindJob } from './write-behind.js';
import { DEFAULT_CONCURRENCY, fetchDiscovery, fetchGroupVersions, merge, type AggregatedDoc, type DiscoveryLimits } from './client.js';
import { dropUnsafeNames } from './names.js';

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
}

export interface DiskCachedDiscovery extends CachedDiscovery {
  /** Resolves when every cache write started so far is on disk (never rejects). */
  flush(): Promise<void>;
  /** The cache locations, once resolved (undefined when caching is impossible). */
  paths(): Promise<CachePaths | undefined>;
}

/** The combined file as read: its text (parsed by combined.ts, whole or only the lines a lookup needs). */
interface CombinedRead {
  text: string;
  mtimeMs: number;
  /**
   * servergroups.json is newer than the combined file and not the one it agrees with (another group
   * list): kubectl rewrote its files with other content since (see the top).
   */
  layoutNewer: boolean;
}

/** The combined file, parsed and validated (`combined` undefined when missing or invalid). */
interface CombinedState {
  combined?: CombinedCache;
  mtimeMs?: number;
  layoutNewer: boolean;
}

type Location = { paths: CachePaths; store: DiskStore };

export function createCachedDiscovery(opts: CachedDiscoveryOptions): DiskCachedDiscovery {
  const { transport, server, clock, logger, ttlMs } = opts;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  let memo: DiscoverySnapshot | undefined;
  /** What fresh() reports: the last snapshot came from the server in this process. */
  let fromServer = false;
  let invalidated = false;
  let inflight: Promise<DiscoverySnapshot> | undefined;
  let writes: Promise<void> = Promise.resolve();
  let pathsP: Promise<Location | undefined> | undefined;
  /** The combined file read by lookup(), kept for the snapshot() that usually follows (read once). */
  let preread: Promise<CombinedRead | undefined> | undefined;

  const location = () =>
    (pathsP ??= resolveCacheRoot({ cacheDir: opts.cacheDir, env: opts.env }).then(
      (root) => {
        const paths = cachePaths(root, server);
        if (!paths) {
          if (logger.enabled(1)) logger.warn(`discovery cache disabled: server ${JSON.stringify(server)} does not name a directory inside ${root}`);
          return undefined;
        }
        return { paths, store: opts.store?.(root) ?? new DiskStore(root, logger, () => clock.now()) };
      },
      () => undefined,
    ));

  const withinTtl = (mtimeMs: number) => ttlMs > 0 && clock.now() - mtimeMs < ttlMs;

  async function readCombinedFile({ store, paths }: Location): Promise<CombinedRead | undefined> {
    const [file, sgMtime] = await Promise.all([store.read(paths.combinedFile), store.mtime(paths.serverGroupsFile)]);
    if (!file) return undefined;
    let layoutNewer = sgMtime !== undefined && newerMs(sgMtime, file.mtimeMs);
    if (layoutNewer) {
      // kubectl rewrote its layout. The same servergroups.json bytes as the combined file's groups: the
      // combined file still answers (one file read, not the whole layout; issue 21). Its own TTL holds,
      // so resources changed inside a group-version appear at the TTL or on a miss, as kubectl's do.
      const want = combinedLayoutDigest(file.text);
      const sg = want === undefined ? undefined : await store.read(paths.serverGroupsFile);
      if (sg && layoutDigest(sg.text) === want) layoutNewer = false;
    }
    return { text: file.text, mtimeMs: file.mtimeMs, layoutNewer };
  }

  async function combinedState(loc: Location): Promise<CombinedState> {
    const pre = preread;
    preread = undefined;
    const read = await (pre ?? readCombinedFile(loc));
    const combined = read && parseCombined(read.text, server);
    return read && combined ? { combined, mtimeMs: read.mtimeMs, layoutNewer: read.layoutNewer } : { layoutNewer: false };
  }

  /** Runs cache writes after the current output: on a macrotask, chained, errors logged (never thrown). */
  function later(task: () => Promise<unknown>): void {
    writes = writes.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(task).then(
      () => undefined,
      (e: unknown) => {
        if (logger.enabled(1)) logger.warn(`discovery cache write failed: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }

  /** After a server answer: kubectl's layout, then the combined file (or the combined file and the layout behind). */
  function writeFetched(loc: Location, fetched: CombinedCache, previous: DiscoverySnapshot | undefined): void {
    const snap = combinedSnapshot(fetched);
    if (snap.resources.size === 0) return; // empty answers are never cached
    later(async () => {
      const combined: CombinedCache = { ...fetched, layout: layoutDigest(serverGroupsText(snap.groups)) };
      const files = layoutFiles(loc.paths.kubectlDir, snap, previous);
      const wb = opts.writeBehind;
      if (wb && files.length > (wb.threshold ?? DEFAULT_WRITE_BEHIND_THRESHOLD)) {
        // Combined file first (the next kdyn run is warm at once), dated in whole seconds so the
        // layout files written from it can carry exactly its mtime; then kubectl's files, behind.
        if (loc.store.writeFileSync(loc.paths.combinedFile, formatCombined(combined), wholeSeconds(clock.now()))) {
          await wb.start({ root: loc.paths.root, server });
        }
        return;
      }
      loc.store.writeTreeSync(loc.paths.kubectlDir, files);
      loc.store.writeFileSync(loc.paths.combinedFile, formatCombined(combined));
    });
  }

  /**
   * After an answer read from kubectl's layout, or from the combined file with gaps filled: the fetched
   * group-versions into the layout, and the combined file as a summary dated `mtimeMs` (the data is
   * not younger than that), to the millisecond (see newerMs). Not written while a group-version still fails.
   */
  function writeSummary(loc: Location, snap: DiscoverySnapshot, before: DiscoverySnapshot, mtimeMs: number, layout: string | undefined): void {
    const combined: CombinedCache = layout === undefined ? { mode: 'legacy', server, snapshot: snap } : { mode: 'legacy', server, snapshot: snap, layout };
    later(async () => {
      if (snap.resources.size > before.resources.size) {
        writeLayout(loc.store, loc.paths.kubectlDir, snap, before, false);
      }
      if (snap.failures.length === 0 && loc.store.writeFileSync(loc.paths.combinedFile, formatCombined(combined))) {
        await loc.store.touch(loc.paths.combinedFile, withinSameMs(mtimeMs));
      }
    });
  }

  /** After a 304 for both aggregated documents. */
  async function renewAfterNotModified(loc: Location, state: CombinedState, combined: CombinedCache): Promise<void> {
    if (state.layoutNewer) {
      // kubectl's newer files stay; kdyn's file catches up.
      later(async () => loc.store.writeFileSync(loc.paths.combinedFile, formatCombined({ ...combined, layout: layoutDigest(serverGroupsText(combinedSnapshot(combined).groups)) })));
      return;
    }
    if ((await loc.store.mtime(loc.paths.serverGroupsFile)) === undefined) {
      writeFetched(loc, combined, undefined); // kubectl's files were removed
      return;
    }
    const t = clock.now();
    later(async () => {
      await loc.store.touch(loc.paths.serverGroupsFile, t);
      await loc.store.touch(loc.paths.combinedFile, t);
    });
  }

  /** Fetches the group-versions `snap` lists without resources; returns what it held before. */
  async function fillGaps(snap: DiscoverySnapshot): Promise<DiscoverySnapshot> {
    const before: DiscoverySnapshot = { groups: snap.groups, resources: new Map(snap.resources), failures: [] };
    await fetchGroupVersions(transport, snap, concurrency, opts.limits);
    return before;
  }

  /** The combined file's answer, when it is within the TTL and not layout-newer. */
  async function fromCombinedFile(loc: Location, state: CombinedState): Promise<DiscoverySnapshot | undefined> {
    if (!state.combined || state.layoutNewer || !withinTtl(state.mtimeMs!)) return undefined;
    const snap = dropUnsafeNames(combinedSnapshot(state.combined));
    // Group-versions that failed when this was cached are asked for again (errors are not cached).
    if (missingGroupVersions(snap).length === 0) return snap;
    const before = await fillGaps(snap);
    if (snap.resources.size > before.resources.size) writeSummary(loc, snap, before, state.mtimeMs!, state.combined.layout);
    return snap;
  }

  /** kubectl's layout, when the combined file does not decide (missing, invalid or layout-newer) and servergroups.json is within the TTL. */
  async function fromLayout(loc: Location, state: CombinedState): Promise<DiscoverySnapshot | undefined> {
    if (state.combined && !state.layoutNewer) return undefined; // the combined file decides: it has expired
    const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, withinTtl);
    if (!layout) return undefined;
    const snap = layout.snapshot;
    const before = layout.missing.length ? await fillGaps(snap) : { groups: snap.groups, resources: new Map(snap.resources), failures: [] };
    writeSummary(loc, snap, before, layout.serverGroupsMtimeMs, layout.serverGroupsDigest);
    return snap;
  }

  /** The server's answer, revalidating the combined file's aggregated documents; cache writes scheduled. */
  async function fromServerNow(loc: Location | undefined, state: CombinedState): Promise<DiscoverySnapshot> {
    const cached = state.combined;
    const etags = cached?.mode === 'aggregated' ? { api: cached.api.etag, apis: cached.apis.etag } : undefined;
    const live = await fetchDiscovery(transport, etags ? { etags, concurrency, limits: opts.limits } : { concurrency, limits: opts.limits });
    fromServer = true;
    invalidated = false;
    // The snapshot kdyn's own files hold, when they are known to match it (unchanged layout files are skipped).
    const previous = state.combined && !state.layoutNewer ? combinedSnapshot(state.combined) : undefined;
    if (live.mode === 'legacy') {
      if (loc) writeFetched(loc, { mode: 'legacy', server, snapshot: live.snapshot }, previous);
      return live.snapshot;
    }
    const pick = (doc: AggregatedDoc, old: { etag?: string; part: DiscoverySnapshot } | undefined) => {
      if (!doc.notModified) return doc.etag ? { etag: doc.etag, part: doc.part } : { part: doc.part };
      if (!old) throw new KdynError('discovery: the server answered 304 Not Modified to a request kdyn did not make conditional');
      return { etag: doc.etag, part: old.part };
    };
    const old = cached?.mode === 'aggregated' ? cached : undefined;
    const combined: CombinedCache = { mode: 'aggregated', server, api: pick(live.api, old?.api), apis: pick(live.apis, old?.apis) };
    if (loc) {
      if (live.api.notModified && live.apis.notModified) await renewAfterNotModified(loc, state, combined);
      else writeFetched(loc, combined, previous);
    }
    const snap: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
    merge(snap, combined.api.part);
    merge(snap, combined.apis.part);
    return snap;
  }

  async function load(): Promise<DiscoverySnapshot> {
    const loc = await location();
    const state: CombinedState = loc ? await combinedState(loc) : { layoutNewer: false };
    if (loc && !invalidated) {
      const cached = (await fromCombinedFile(loc, state)) ?? (await fromLayout(loc, state));
      if (cached) {
        fromServer = false;
        return cached;
      }
    }
    return fromServerNow(loc, state);
  }

  /** `--cached`: whatever the disk holds, whatever its age; never the server. */
  async function fromCacheOnly(): Promise<DiscoverySnapshot> {
    const loc = await location();
    if (loc) {
      const state = await combinedState(loc);
      if (state.combined && !state.layoutNewer) {
        const snap = dropUnsafeNames(combinedSnapshot(state.combined));
        for (const gv of missingGroupVersions(snap)) snap.failures.push(notCached(gv));
        return snap;
      }
      const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, () => true);
      if (layout) {
        for (const m of layout.missing) layout.snapshot.failures.push(notCached(m.group ? `${m.group}/${m.version}` : m.version));
        return layout.snapshot;
      }
    }
    throw new NoCachedDiscoveryError(server, loc ? loc.paths.kubectlDir : 'the cache directory');
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
      const read = await (preread ??= readCombinedFile(loc));
      // Only where snapshot() would answer from the combined file alone (same TTL and layout-newer rules).
      if (!read || read.layoutNewer || !withinTtl(read.mtimeMs)) return undefined;
      const part = indexedSnapshot(read.text, server, token);
      return part && dropUnsafeNames(part);
    },
    invalidate(): void {
      memo = undefined;
      preread = undefined;
      invalidated = true;
      fromServer = false;
    },
    fresh: () => fromServer,
    flush: () => writes,
    paths: async () => (await location())?.paths,
  };
}

function notCached(gv: string) {
  return { groupVersion: gv, reason: 'failed' as const, message: `couldn't get resource list for ${gv}: not in the discovery cache` };
}

/** Group-versions a snapshot lists without resources or a failure (they failed when it was cached). */
function missingGroupVersions(s: DiscoverySnapshot): string[] {
  const failed = new Set(s.failures.map((f) => f.groupVersion));
  const out: string[] = [];
  for (const g of s.groups) {
    for (const v of g.versions) {
      const gv = g.name ? `${g.name}/${v}` : v;
      if (!s.resources.has(gv) && !failed.has(gv)) out.push(gv);
    }
  }
  return out;
}
