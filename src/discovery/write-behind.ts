/**
 * Write-behind of kubectl's layout: when a discovery answer needs many kubectl-layout files (a cold
 * cache on a cluster with hundreds of CRD groups means ~1,000 files, 2,000 mkdirs), kdyn writes only
 * its combined file before it exits and a detached process writes kubectl's files from it.
 *
 * The writer gets paths, never credentials: it reads `<root>/kdyn/<host>/discovery.json` and writes
 * every `<group>/<version>/serverresources.json`, then servergroups.json, each atomically (temp file,
 * rename) and each dated with the combined file's mtime before the rename. Dated that way, kdyn's rule
 * "servergroups.json newer than the combined file means kubectl rewrote its files" does not fire on
 * kdyn's own writes, and kubectl's TTL counts from when the data was fetched. Two writers may run at
 * once: writes are idempotent and atomic, and a writer that finds the combined file replaced while it
 * wrote starts over, so the last one to finish leaves the newest data.
 */
import type { Logger } from '../core/log.js';
import { cachePaths } from './cache-dir.js';
import { combinedSnapshot, parseCombined } from './combined.js';
import { DiskStore, newerMs } from './disk.js';
import { writeLayout } from './layout.js';

/** How a CachedDiscovery hands big layout writes to a background process (the CLI sets this). */
export interface WriteBehind {
  /** More kubectl-layout files than this are written behind; this many or fewer, before exit (default DEFAULT_WRITE_BEHIND_THRESHOLD). */
  threshold?: number;
  /** Starts the background writer for this cache root and server URL (no credentials). */
  start(job: WriteBehindJob): Promise<void> | void;
}

export interface WriteBehindJob {
  root: string;
  server: string;
}

/**
 * The CLI's WriteBehind: starts the background writer (layout-writer.ts) detached, with no stdio and
 * only paths as arguments. The writer's file sits beside the code that starts it: dist/cli/layout-writer.js
 * beside the CLI bundle, or build/src/discovery/layout-writer.js when running transpiled.
 */
export async function startLayoutWriter(job: WriteBehindJob): Promise<void> {
  const [{ spawn }, { fileURLToPath }, { dirname, join }] = await Promise.all([import('node:child_process'), import('node:url'), import('node:path')]);
  const dir = dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [join(dir, 'layout-writer.js'), job.root, job.server], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}

/** The CLI's threshold: the demo seed (~60 files) is still written before exit. */
export const DEFAULT_WRITE_BEHIND_THRESHOLD = 64;

/**
 * Whole seconds, which utimes stores exactly: the combined file and the layout files written from it
 * then carry the very same mtime (sub-second values are rounded by the utimes/stat round trip).
 */
export function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/**
 * The background writer's work: kubectl's layout from the combined file. Returns true when the layout
 * on disk matches the combined file as it is at the end; false when there was nothing (valid) to write,
 * kubectl's files are newer than the combined file (kubectl rewrote them: left alone), or writing failed.
 */
export async function writeLayoutFromCombined(root: string, server: string, logger: Logger, attempts = 3): Promise<boolean> {
  const paths = cachePaths(root, server);
  if (!paths) return false;
  const store = new DiskStore(root, logger);
  for (let i = 0; i < attempts; i++) {
    const file = await store.read(paths.combinedFile);
    const combined = file && parseCombined(file.text, server);
    if (!file || !combined) return false;
    const sg = await store.mtime(paths.serverGroupsFile);
    if (sg !== undefined && newerMs(sg, file.mtimeMs)) return false;
    const snap = combinedSnapshot(combined);
    if (snap.resources.size === 0) return false;
    if (!writeLayout(store, paths.kubectlDir, snap, undefined, true, wholeSeconds(file.mtimeMs))) return false;
    const now = await store.read(paths.combinedFile);
    if (now && now.mtimeMs === file.mtimeMs && now.text === file.text) return true;
  }
  return false;
}
