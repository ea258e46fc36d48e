/**
 * CachedDiscovery: the disk cache shared with kubectl in front of live discovery.
 *
 * Reads, cheapest first: the in-process snapshot; kdyn's combined file (one read, unless kubectl's
 * servergroups.json is newer than it, in which case kubectl's files are read instead; `lookup()` takes
 * only the groups its index lists for one name, under the same rules); then the server,
 * revalidating aggregated documents with If-None-Match (a 304 renews the cache without a download).
 * Fresh answers are written in kubectl's layout and then to the combined file, in the background:
 * `flush()` waits for them. With `writeBehind` (the CLI), an answer that needs more layout files than
 * its threshold is written only to the combined file and a detached process writes kubectl's files
 * (see write-behind.ts). TTL is judged by file mtime against the injected clock.
 */
import { KdynError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Transport } from '../transport/types.js';
import type { CachedDiscovery, DiscoverySnapshot, SnapshotOptions } from './types.js';
import { cachePaths, resolveCacheRoot, type CachePaths } from './cache-dir.js';
import { DiskStore } from './disk.js';
import { combinedSnapshot, formatCombined, indexedSnapshot, parseCombined, type CombinedCache } from './combined.js';
import { layoutFiles, readLayout, writeLayout } from './layout.js';
import { wholeSeconds, type WriteBehind } from './write-behind.js';

export { DEFAULT_WRITE_BEHIND_THRESHOLD, type WriteBehind, type WriteBehindJob } from './write-behind.js';
import { DEFAULT_CONCURRENCY, fetchDiscovery, fetchGroupVersions, merge, type AggregatedDoc, type DiscoveryLimits } from './client.js';
import { dropUnsafeNames } from './names.js';

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
}

export interface DiskCachedDiscovery extends CachedDiscovery {
  /** Resolves when every cache write started so far is on disk (never rejects). */
  flush(): Promise<void>;
  /** The cache locations, once resolved (undefined when caching is impossible). */
  paths(): Promise<CachePaths | undefined>;
}

interface CacheState {
  combined?: CombinedCache;
  combinedMtimeMs?: number;
  /** True when the combined file is superseded by newer kubectl-layout files. */
  superseded: boolean;
}

interface RawCombined {
  /** The file's text; parsed by combined.ts, whole or only the lines a lookup needs. */
  text: string;
  mtimeMs: number;
  superseded: boolean;
}

export function createCachedDiscovery(opts: CachedDiscoveryOptions): DiskCachedDiscovery {
  const { transport, server, clock, logger, ttlMs } = opts;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  let memo: DiscoverySnapshot | undefined;
  let fromServer = false;
  let invalidated = false;
  let inflight: Promise<DiscoverySnapshot> | undefined;
  let writes: Promise<void> = Promise.resolve();
  let pathsP: Promise<{ paths: CachePaths; store: DiskStore } | undefined> | undefined;
  let preread: Promise<RawCombined | undefined> | undefined;

  const location = () =>
    (pathsP ??= resolveCacheRoot({ cacheDir: opts.cacheDir, env: opts.env }).then(
      (root) => {
        const paths = cachePaths(root, server);
        if (!paths) {
          if (logger.enabled(1)) logger.warn(`discovery cache disabled: server ${JSON.stringify(server)} does not name a directory inside ${root}`);
          return undefined;
        }
        return { paths, store: new DiskStore(root, logger, () => clock.now()) };
      },
      () => undefined,
    ));

  const isFresh = (mtimeMs: number) => ttlMs > 0 && clock.now() - mtimeMs < ttlMs;

  /** The combined file, JSON-parsed but not validated, and servergroups.json's mtime. */
  async function readRaw(store: DiskStore, paths: CachePaths): Promise<RawCombined | undefined> {
    const [file, sgMtime] = await Promise.all([store.read(paths.combinedFile), store.mtime(paths.serverGroupsFile)]);
    if (!file) return undefined;
    try {
      // kubectl may have rewritten its files since kdyn summarised them: then they win.
      return { text: file.text, mtimeMs: file.mtimeMs, superseded: sgMtime !== undefined && sgMtime > file.mtimeMs };
    } catch {
      return undefined; // corrupt or truncated
    }
  }

  async function readCombined(store: DiskStore, paths: CachePaths): Promise<CacheState> {
    // A read made by lookup() moments ago is used once instead of reading the file again.
    const pre = preread;
    preread = undefined;
    const raw = await (pre ?? readRaw(store, paths));
    const combined = raw && parseCombined(raw.text, server);
    if (!raw || !combined) return { superseded: false };
    return { combined, combinedMtimeMs: raw.mtimeMs, superseded: raw.superseded };
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

  /** Writes kubectl's layout, then the combined file (so it is never older than what it summarises). */
  function persist(loc: { paths: CachePaths; store: DiskStore }, combined: CombinedCache, previous: DiscoverySnapshot | undefined): void {
    const snap = combinedSnapshot(combined);
    if (snap.resources.size === 0) return; // empty answers are never cached
    later(async () => {
      const files = layoutFiles(loc.paths.kubectlDir, snap, previous);
      const wb = opts.writeBehind;
      if (wb && files.length > wb.threshold) {
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
   * Summarises fresh kubectl-layout files into the combined file, dated like servergroups.json so the
   * data does not look younger than it is. Group-versions fetched to fill gaps are written to the layout.
   */
  function summarise(loc: { paths: CachePaths; store: DiskStore }, combined: CombinedCache, before: DiscoverySnapshot, mtimeMs: number): void {
    const snap = combinedSnapshot(combined);
    later(async () => {
      if (snap.resources.size > before.resources.size) {
        writeLayout(loc.store, loc.paths.kubectlDir, snap, before, false);
      }
      if (snap.failures.length === 0 && loc.store.writeFileSync(loc.paths.combinedFile, formatCombined(combined))) {
        await loc.store.touch(loc.paths.combinedFile, mtimeMs);
      }
    });
  }

  /** A 304 for both documents: renew servergroups.json and the combined file (same mtime, in that order). */
  function renew(loc: { paths: CachePaths; store: DiskStore }): void {
    const t = clock.now();
    later(async () => {
      await loc.store.touch(loc.paths.serverGroupsFile, t);
      await loc.store.touch(loc.paths.combinedFile, t);
    });
  }

  async function fromCacheOnly(): Promise<DiscoverySnapshot> {
    const loc = await location();
    if (loc) {
      const st = await readCombined(loc.store, loc.paths);
      if (st.combined && !st.superseded) {
        const snap = dropUnsafeNames(combinedSnapshot(st.combined));
        for (const gv of missingGroupVersions(snap)) snap.failures.push(notCached(gv));
        return snap;
      }
      const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, () => true);
      if (layout) {
        for (const m of layout.missing) layout.snapshot.failures.push(notCached(m.group ? `${m.group}/${m.version}` : m.version));
        return layout.snapshot;
      }
    }
    const where = loc ? loc.paths.kubectlDir : 'the cache directory';
    throw new KdynError(`no cached discovery for ${server} in ${where} (run once without --cached to fill it)`);
  }

  async function load(): Promise<DiscoverySnapshot> {
    const loc = await location();
    let state: CacheState = { superseded: false };
    if (loc) {
      state = await readCombined(loc.store, loc.paths);
      if (!invalidated) {
        if (state.combined && !state.superseded && isFresh(state.combinedMtimeMs!)) {
          fromServer = false;
          const snap = dropUnsafeNames(combinedSnapshot(state.combined));
          // Group-versions that failed when this was cached are asked for again (errors are not cached).
          if (missingGroupVersions(snap).length) {
            const before: DiscoverySnapshot = { groups: snap.groups, resources: new Map(snap.resources), failures: [] };
            await fetchGroupVersions(transport, snap, concurrency, opts.limits);
            if (snap.resources.size > before.resources.size) summarise(loc, { mode: 'legacy', server, snapshot: snap }, before, state.combinedMtimeMs!);
          }
          return snap;
        }
        if (!state.combined || state.superseded) {
          const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, isFresh);
          if (layout) {
            // kubectl's (or an older kdyn's) fresh files: fill any missing group-versions as kubectl would.
            const snap = layout.snapshot;
            const before: DiscoverySnapshot = { groups: snap.groups, resources: new Map(snap.resources), failures: [] };
            if (layout.missing.length) await fetchGroupVersions(transport, snap, concurrency, opts.limits);
            fromServer = false;
            summarise(loc, { mode: 'legacy', server, snapshot: snap }, before, layout.serverGroupsMtimeMs);
            return snap;
          }
        }
      }
    }
    const cached = state.combined;
    const etags = cached?.mode === 'aggregated' ? { api: cached.api.etag, apis: cached.apis.etag } : undefined;
    const live = await fetchDiscovery(transport, etags ? { etags, concurrency, limits: opts.limits } : { concurrency, limits: opts.limits });
    fromServer = true;
    invalidated = false;
    if (live.mode === 'legacy') {
      const combined: CombinedCache = { mode: 'legacy', server, snapshot: live.snapshot };
      if (loc) persist(loc, combined, usable(state));
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
      if (live.api.notModified && live.apis.notModified) {
        if (state.superseded) later(async () => loc.store.writeFileSync(loc.paths.combinedFile, formatCombined(combined)));
        else if ((await loc.store.mtime(loc.paths.serverGroupsFile)) === undefined) persist(loc, combined, undefined); // kubectl's files were removed
        else renew(loc);
      } else {
        persist(loc, combined, usable(state));
      }
    }
    const snap: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
    merge(snap, combined.api.part);
    merge(snap, combined.apis.part);
    return snap;
  }

  /** The previous snapshot, when kdyn's own files are known to match it (to skip unchanged files). */
  function usable(state: CacheState): DiscoverySnapshot | undefined {
    return state.combined && !state.superseded ? combinedSnapshot(state.combined) : undefined;
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
      const raw = await (preread ??= readRaw(loc.store, loc.paths));
      // Only where snapshot() would answer from the combined file alone (same TTL and kubectl-newer rules).
      if (!raw || raw.superseded || !isFresh(raw.mtimeMs)) return undefined;
      const part = indexedSnapshot(raw.text, server, token);
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
