/**
 * Where a discovery snapshot comes from (the order and the rules are the map at the top of cached.ts):
 * kdyn's combined file, kubectl's layout, the server revalidating the combined file's ETags, or, for
 * `--cached`, whatever the disk holds. Each reader gets its collaborators in a `Sources` (the
 * transport, the freshness policy, the cache writes) and keeps no state: the memo, the in-flight
 * request and fresh() stay with cached.ts.
 */
import { KdynError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { Transport } from '../transport/types.js';
import type { DiscoveryFailure, DiscoverySnapshot } from './types.js';
import { cachePaths, resolveCacheRoot } from './cache-dir.js';
import { DiskStore } from './disk.js';
import { combinedSnapshot, type CombinedCache } from './combined.js';
import { readLayout } from './layout.js';
import { Freshness, type CacheLocation, type CombinedState } from './freshness.js';
import type { CacheWrites } from './cache-writes.js';
import { fetchDiscovery, fetchGroupVersions, merge, type AggregatedDoc, type DiscoveryLimits, type LiveDiscovery } from './client.js';
import { dropUnsafeNames } from './names.js';

/** What the readers below work with, for one server. */
export interface Sources {
  transport: Transport;
  /** The kubeconfig's server URL, as the combined file records it. */
  server: string;
  policy: Freshness;
  writes: CacheWrites;
  concurrency: number;
  limits?: DiscoveryLimits | undefined;
}

/**
 * The cache's location for `server`, resolved on the first call and remembered: the root from
 * `cacheDir` or the environment, the server's directories in it, and the file operations over it
 * (`store`, a DiskStore by default). Undefined when no directory can be used.
 */
export function cacheLocator(o: {
  server: string;
  cacheDir?: string | undefined;
  env: Record<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  store?: ((root: string) => DiskStore) | undefined;
}): () => Promise<CacheLocation | undefined> {
  let located: Promise<CacheLocation | undefined> | undefined;
  return () =>
    (located ??= resolveCacheRoot({ cacheDir: o.cacheDir, env: o.env }).then(
      (root) => {
        const paths = cachePaths(root, o.server);
        if (!paths) {
          if (o.logger.enabled(1)) o.logger.warn(`discovery cache disabled: server ${JSON.stringify(o.server)} does not name a directory inside ${root}`);
          return undefined;
        }
        return { paths, store: o.store?.(root) ?? new DiskStore(root, o.logger, () => o.clock.now()) };
      },
      () => undefined,
    ));
}

/** A copy of what `snap` holds now (its resources map copied), with no failures. */
function heldBefore(snap: DiscoverySnapshot): DiscoverySnapshot {
  return { groups: snap.groups, resources: new Map(snap.resources), failures: [] };
}

/** Fetches the group-versions `snap` lists without resources; returns what it held before. */
async function fillGaps(s: Sources, snap: DiscoverySnapshot): Promise<DiscoverySnapshot> {
  const before = heldBefore(snap);
  await fetchGroupVersions(s.transport, snap, s.concurrency, s.limits);
  return before;
}

/** The combined file's answer, when the policy lets it answer alone. */
export async function fromCombinedFile(s: Sources, loc: CacheLocation, state: CombinedState): Promise<DiscoverySnapshot | undefined> {
  if (!state.combined || !s.policy.combinedAnswers(state)) return undefined;
  const snap = dropUnsafeNames(combinedSnapshot(state.combined));
  // Group-versions that failed when this was cached are asked for again (errors are not cached).
  if (missingGroupVersions(snap).length === 0) return snap;
  const before = await fillGaps(s, snap);
  if (snap.resources.size > before.resources.size) s.writes.summary(loc, snap, before, state.mtimeMs!, state.combined.layout);
  return snap;
}

/** kubectl's layout, when the combined file does not decide and servergroups.json is within the TTL. */
export async function fromLayout(s: Sources, loc: CacheLocation, state: CombinedState): Promise<DiscoverySnapshot | undefined> {
  if (!Freshness.layoutMayAnswer(state)) return undefined; // the combined file decides: it has expired
  const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, (m) => s.policy.withinTtl(m));
  if (!layout) return undefined;
  const snap = layout.snapshot;
  const before = layout.missing.length ? await fillGaps(s, snap) : heldBefore(snap);
  s.writes.summary(loc, snap, before, layout.serverGroupsMtimeMs, layout.serverGroupsDigest);
  return snap;
}

/** The server's answer to a discovery request, revalidating the combined file's aggregated documents (If-None-Match). */
export function fetchLive(s: Sources, state: CombinedState): Promise<LiveDiscovery> {
  const cached = state.combined;
  const etags = cached?.mode === 'aggregated' ? { api: cached.api.etag, apis: cached.apis.etag } : undefined;
  return fetchDiscovery(s.transport, etags ? { etags, concurrency: s.concurrency, limits: s.limits } : { concurrency: s.concurrency, limits: s.limits });
}

/**
 * The snapshot of a server answer (a 304 takes the combined file's part), with the cache writes it
 * calls for scheduled (`loc` undefined: no cache).
 */
export async function keepLive(s: Sources, loc: CacheLocation | undefined, state: CombinedState, live: LiveDiscovery): Promise<DiscoverySnapshot> {
  // The snapshot kdyn's own files hold, when they are known to match it (unchanged layout files are skipped).
  const previous = state.combined && !state.layoutNewer ? combinedSnapshot(state.combined) : undefined;
  if (live.mode === 'legacy') {
    if (loc) s.writes.fetched(loc, { mode: 'legacy', server: s.server, snapshot: live.snapshot }, previous);
    return live.snapshot;
  }
  const old = state.combined?.mode === 'aggregated' ? state.combined : undefined;
  const combined: CombinedCache = { mode: 'aggregated', server: s.server, api: revalidated(live.api, old?.api), apis: revalidated(live.apis, old?.apis) };
  if (loc) {
    if (live.api.notModified && live.apis.notModified) await s.writes.notModified(loc, state, combined);
    else s.writes.fetched(loc, combined, previous);
  }
  const snap: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
  merge(snap, combined.api.part);
  merge(snap, combined.apis.part);
  return snap;
}

/** One aggregated document as the combined file keeps it: the server's, or the cached one after a 304. */
function revalidated(doc: AggregatedDoc, old: { etag?: string; part: DiscoverySnapshot } | undefined): { etag?: string; part: DiscoverySnapshot } {
  if (!doc.notModified) return doc.etag ? { etag: doc.etag, part: doc.part } : { part: doc.part };
  if (!old) throw new KdynError('discovery: the server answered 304 Not Modified to a request kdyn did not make conditional');
  return { etag: doc.etag, part: old.part };
}

/**
 * `--cached`: whatever the disk holds, whatever its age (the combined file unless kubectl's layout
 * is newer, else the layout), with the group-versions it lacks as failures; `pastTtl` says whether
 * the files were past the TTL. Undefined when neither is there.
 */
export async function fromDiskOnly(s: Sources, loc: CacheLocation, state: CombinedState): Promise<{ snapshot: DiscoverySnapshot; pastTtl: boolean } | undefined> {
  if (state.combined && !state.layoutNewer) {
    const snapshot = dropUnsafeNames(combinedSnapshot(state.combined));
    for (const gv of missingGroupVersions(snapshot)) snapshot.failures.push(notCached(gv));
    return { snapshot, pastTtl: !s.policy.withinTtl(state.mtimeMs!) };
  }
  const layout = await readLayout(loc.store, loc.paths.kubectlDir, loc.paths.serverGroupsFile, () => true);
  if (!layout) return undefined;
  for (const m of layout.missing) layout.snapshot.failures.push(notCached(m.group ? `${m.group}/${m.version}` : m.version));
  return { snapshot: layout.snapshot, pastTtl: !s.policy.withinTtl(layout.serverGroupsMtimeMs) };
}

function notCached(gv: string): DiscoveryFailure {
  return { groupVersion: gv, reason: 'failed', message: `couldn't get resource list for ${gv}: not in the discovery cache` };
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
