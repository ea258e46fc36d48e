/**
 * The discovery cache's writes (see "Who writes what" at the top of cached.ts): after the answer is
 * returned, on a macrotask, chained (`flush()` waits), never an empty answer, every file atomically
 * (disk.ts). Errors are logged at -v=1, never thrown.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { DiscoverySnapshot } from './types.js';
import { join } from 'node:path';
import { withinSameMs } from './disk.js';
import { serverResourcesFile } from './cache-dir.js';
import { isSafeGroupName, isSafeGroupVersion } from './names.js';
import { combinedSnapshot, formatCombined, type CombinedCache, type GroupIndex } from './combined.js';
import { layoutDigest, layoutFiles, serverGroupsText, writeLayout } from './layout.js';
import { DEFAULT_WRITE_BEHIND_THRESHOLD, wholeSeconds, type WriteBehind } from './write-behind.js';
import type { CacheLocation, CombinedState } from './freshness.js';

export interface CacheWritesOptions {
  server: string;
  clock: Clock;
  logger: Logger;
  writeBehind?: WriteBehind | undefined;
  /** Builds the lookup index stored in the combined file (see CachedDiscoveryOptions.index). */
  index?: ((s: DiscoverySnapshot) => GroupIndex | undefined) | undefined;
}

export class CacheWrites {
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly opts: CacheWritesOptions) {}

  /** Resolves when every write started so far is on disk (never rejects). */
  flush(): Promise<void> {
    return this.writes;
  }

  /**
   * After a server answer: kubectl's layout, then the combined file, so the combined file is never
   * older than the layout it summarises. With write-behind and more layout files than its threshold:
   * the combined file only, dated in whole seconds, and kubectl's files from it in a detached process.
   */
  fetched(loc: CacheLocation, fetched: CombinedCache, previous: DiscoverySnapshot | undefined): void {
    const snap = combinedSnapshot(fetched);
    if (snap.resources.size === 0) return; // empty answers are never cached
    this.later(async () => {
      const combined: CombinedCache = { ...fetched, layout: layoutDigest(serverGroupsText(snap.groups)) };
      const files = layoutFiles(loc.paths.kubectlDir, snap, previous);
      const wb = this.opts.writeBehind;
      if (wb && files.length > (wb.threshold ?? DEFAULT_WRITE_BEHIND_THRESHOLD)) {
        // Combined file first (the next kdyn run is warm at once), dated in whole seconds so the
        // layout files written from it can carry exactly its mtime; then kubectl's files, behind.
        if (loc.store.writeFileSync(loc.paths.combinedFile, this.format(combined), wholeSeconds(this.opts.clock.now()))) {
          await wb.start({ root: loc.paths.root, server: this.opts.server });
        }
        return;
      }
      loc.store.writeTreeSync(loc.paths.kubectlDir, files);
      loc.store.writeFileSync(loc.paths.combinedFile, this.format(combined));
    });
  }

  /**
   * After an answer read from kubectl's layout, or from the combined file with gaps filled: the fetched
   * group-versions into the layout, and the combined file as a summary dated `mtimeMs` (the data is
   * not younger than that), to the millisecond (see newerMs), agreeing with the servergroups.json
   * whose digest is `layout`. Not written while a group-version still fails.
   */
  summary(loc: CacheLocation, snap: DiscoverySnapshot, before: DiscoverySnapshot, mtimeMs: number, layout: string | undefined): void {
    const server = this.opts.server;
    const combined: CombinedCache = layout === undefined ? { mode: 'legacy', server, snapshot: snap } : { mode: 'legacy', server, snapshot: snap, layout };
    this.later(async () => {
      if (snap.resources.size > before.resources.size) {
        writeLayout(loc.store, loc.paths.kubectlDir, snap, before, false);
      }
      if (snap.failures.length === 0 && loc.store.writeFileSync(loc.paths.combinedFile, this.format(combined))) {
        await loc.store.touch(loc.paths.combinedFile, withinSameMs(mtimeMs));
      }
    });
  }

  /**
   * After a 304 for both aggregated documents: both files' mtimes move to now (servergroups.json
   * first); if the layout is newer, only the combined file is rewritten (kubectl's files stay); if
   * kubectl's files are gone, both are written.
   */
  async notModified(loc: CacheLocation, state: CombinedState, combined: CombinedCache): Promise<void> {
    if (state.layoutNewer) {
      const layout = layoutDigest(serverGroupsText(combinedSnapshot(combined).groups));
      this.later(async () => loc.store.writeFileSync(loc.paths.combinedFile, this.format({ ...combined, layout })));
      return;
    }
    if ((await loc.store.mtime(loc.paths.serverGroupsFile)) === undefined) {
      this.fetched(loc, combined, undefined); // kubectl's files were removed
      return;
    }
    const t = this.opts.clock.now();
    this.later(async () => {
      await loc.store.touch(loc.paths.serverGroupsFile, t);
      await loc.store.touch(loc.paths.combinedFile, t);
    });
  }

  /**
   * After a write that changed the server's API (a CRD or an APIService created, changed or deleted;
   * invalidation.ts): the combined file, servergroups.json and every serverresources.json of `groups`
   * are dated at the epoch, after the writes already scheduled, so the next run of kdyn (revalidating
   * with the combined file's ETags) and of kubectl (refetching the groups and those group-versions)
   * asks the server. Nothing is deleted: the ETags stay usable, unchanged files need no download.
   */
  expire(where: Promise<CacheLocation | undefined>, groups: readonly string[]): void {
    this.later(async () => {
      const loc = await where;
      if (!loc) return;
      const { store, paths } = loc;
      await store.expire(paths.combinedFile);
      await store.expire(paths.serverGroupsFile);
      for (const group of new Set(groups)) {
        if (group === '' || !isSafeGroupName(group)) continue;
        for (const version of await store.list(join(paths.kubectlDir, group))) {
          if (isSafeGroupVersion(group, version)) await store.expire(serverResourcesFile(paths.kubectlDir, group, version));
        }
      }
    });
  }

  /** The combined file's text, with the lookup index when one is built. */
  private format(c: CombinedCache): string {
    const index = this.opts.index?.(combinedSnapshot(c));
    return index ? formatCombined(c, index) : formatCombined(c);
  }

  /** Runs cache writes after the current output: on a macrotask, chained, errors logged (never thrown). */
  private later(task: () => Promise<unknown>): void {
    const { logger } = this.opts;
    this.writes = this.writes.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(task).then(
      () => undefined,
      (e: unknown) => {
        if (logger.enabled(1)) logger.warn(`discovery cache write failed: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }
}
