/**
 * The discovery cache's freshness policy (see the map at the top of cached.ts): which of kdyn's
 * combined file, kubectl's layout and the server answers, from the files' mtimes, the TTL and the
 * injected clock. Reads files but never writes them.
 */
import type { Clock } from '../core/clock.js';
import type { CachePaths } from './cache-dir.js';
import { newerMs, type DiskStore } from './disk.js';
import { combinedLayoutDigest, parseCombined, type CombinedCache } from './combined.js';
import { layoutDigest } from './layout.js';

/** Where one server's cache lives (resolved once per process). */
export interface CacheLocation {
  paths: CachePaths;
  store: DiskStore;
}

/** The combined file as read: its text (parsed by combined.ts, whole or only the lines a lookup needs). */
export interface CombinedRead {
  text: string;
  mtimeMs: number;
  /**
   * servergroups.json is newer than the combined file and not the one it agrees with (another group
   * list): kubectl rewrote its files with other content since.
   */
  layoutNewer: boolean;
}

/** The combined file, parsed and validated (`combined` undefined when missing or invalid). */
export interface CombinedState {
  combined?: CombinedCache;
  mtimeMs?: number;
  layoutNewer: boolean;
}

export const NO_COMBINED: CombinedState = { layoutNewer: false };

export class Freshness {
  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** A file dated `mtimeMs` is less than the TTL old (never with a TTL of 0). */
  withinTtl(mtimeMs: number): boolean {
    return this.ttlMs > 0 && this.clock.now() - mtimeMs < this.ttlMs;
  }

  /** Reads the combined file and decides whether kubectl's layout is newer (undefined: no file). */
  async readCombined({ store, paths }: CacheLocation): Promise<CombinedRead | undefined> {
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

  /** The read parsed for `server` (an invalid file counts as none). */
  static state(read: CombinedRead | undefined, server: string): CombinedState {
    const combined = read && parseCombined(read.text, server);
    return read && combined ? { combined, mtimeMs: read.mtimeMs, layoutNewer: read.layoutNewer } : NO_COMBINED;
  }

  /** The combined file (when valid) answers on its own: within the TTL, and kubectl's layout is not newer. */
  combinedAnswers(c: { mtimeMs?: number | undefined; layoutNewer: boolean }): boolean {
    return !c.layoutNewer && c.mtimeMs !== undefined && this.withinTtl(c.mtimeMs);
  }

  /**
   * kubectl's layout may answer when the combined file does not decide: it is missing or invalid, or
   * the layout is newer. (An expired combined file that is not layout-newer goes to the server: the
   * layout is then at least as old.)
   */
  static layoutMayAnswer(s: CombinedState): boolean {
    return !s.combined || s.layoutNewer;
  }
}
