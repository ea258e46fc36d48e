/**
 * File operations of the discovery cache, as kubectl does them (`cached/disk/cached_discovery.go`
 * writeCachedFile): directories 0750, a temp file `<name>.<rand>` in the same directory chmod 0660,
 * then rename (atomic). Every path is checked to be inside the root. Write failures never throw:
 * the first one is logged (a warning at -v>=1) and caching is switched off for the rest of the run.
 */
import { promises as fsp, chmodSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/log.js';
import { isInside } from './cache-dir.js';

export interface ReadResult {
  text: string;
  mtimeMs: number;
}

/**
 * A staging directory (`<host>.<12 hex>`, see writeTreeSync) older than this belongs to a writer that
 * was killed mid-write (no write takes minutes): the next write of the same layout removes it.
 */
export const STALE_STAGING_MS = 5 * 60_000;

export class DiskStore {
  private disabled = false;
  private readonly madeDirs = new Set<string>();
  private readonly swept = new Set<string>();

  constructor(
    readonly root: string,
    private readonly logger: Logger,
    /** The clock that decides when a staging directory is stale. */
    private readonly now: () => number = Date.now,
  ) {}

  get writable(): boolean {
    return !this.disabled;
  }

  /**
   * Reads a file; undefined when missing or unreadable (never throws). Synchronous underneath: cache
   * files are small and local, and a sync read costs far less than fs/promises' open/stat/read/close.
   */
  async read(path: string): Promise<ReadResult | undefined> {
    if (!isInside(this.root, path)) return undefined;
    let fd: number | undefined;
    try {
      fd = openSync(path, 'r');
      const st = fstatSync(fd);
      if (!st.isFile()) return undefined;
      return { text: readFileSync(fd, 'utf8'), mtimeMs: st.mtimeMs };
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** mtime in ms, or undefined when missing. */
  async mtime(path: string): Promise<number | undefined> {
    try {
      const st = statSync(path);
      return st.isFile() ? st.mtimeMs : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Dates a file at the epoch, older than any TTL (kdyn's or kubectl's), so the next run of either
   * tool asks the server instead of trusting it; a missing file stays missing (not an error).
   */
  async expire(path: string): Promise<void> {
    if (this.disabled || !isInside(this.root, path)) return;
    try {
      await fsp.utimes(path, 0, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') this.fail(path, e);
    }
  }

  /** The names in a directory inside the root; [] when it is missing or unreadable. */
  async list(dir: string): Promise<string[]> {
    if (!isInside(this.root, dir)) return [];
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  }

  /**
   * Writes a set of files under `dir` (relative paths, validated by the caller), synchronously: this
   * runs after the answer is printed, and sync calls cost far less than fs/promises' per-call overhead.
   * When `dir` does not exist yet (a cold cache), the whole tree is built in a temp sibling and renamed
   * into place at once (atomic as a whole, one file create per file); otherwise each file is written to
   * a temp file and renamed (atomic per file). Returns false when writing failed (logged once).
   * `stampMs`: the mtime every file gets before it is renamed into place (never visible undated).
   */
  writeTreeSync(dir: string, files: ReadonlyArray<{ rel: string; data: string }>, stampMs?: number): boolean {
    if (this.disabled || files.length === 0) return !this.disabled;
    if (!isInside(this.root, dir) || dir === this.root) {
      this.fail(dir, new Error('path outside the cache directory'));
      return false;
    }
    this.removeStaleStaging(dir);
    let exists = false;
    try {
      exists = statSync(dir).isDirectory();
    } catch {
      /* missing */
    }
    if (exists) {
      for (const f of files) if (!this.writeFileSync(join(dir, f.rel), f.data, stampMs)) return false;
      return true;
    }
    const staging = `${dir}.${randomBytes(6).toString('hex')}`;
    try {
      mkdirpSync(dirname(dir), 0o750);
      mkdirSync(staging, 0o750);
      const made = new Set<string>([staging]);
      let exactMode: boolean | undefined;
      for (const f of files) {
        const path = join(staging, f.rel);
        this.mkdirsSync(dirname(path), made);
        writeFileSync(path, f.data, { flag: 'wx', mode: 0o660 });
        // The umask may strip group bits; check once, then chmod only if needed (kubectl chmods 0660).
        exactMode ??= (statSync(path).mode & 0o777) === 0o660;
        if (!exactMode) chmodSync(path, 0o660);
        if (stampMs !== undefined) stamp(path, stampMs);
      }
      renameSync(staging, dir);
      return true;
    } catch (e) {
      try {
        rmSync(staging, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
      // Another process created the directory meanwhile: write file by file instead.
      if ((e as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (e as NodeJS.ErrnoException).code === 'EEXIST') {
        for (const f of files) if (!this.writeFileSync(join(dir, f.rel), f.data, stampMs)) return false;
        return true;
      }
      this.fail(dir, e);
      return false;
    }
  }

  /** One file, atomically (temp file in the same directory, chmod 0660, optional mtime `stampMs`, rename). */
  writeFileSync(path: string, data: string, stampMs?: number): boolean {
    if (this.disabled) return false;
    if (!isInside(this.root, path) || path === this.root) {
      this.fail(path, new Error('path outside the cache directory'));
      return false;
    }
    const tmp = `${path}.${randomBytes(6).toString('hex')}`;
    try {
      const dir = dirname(path);
      if (!this.madeDirs.has(dir)) {
        mkdirpSync(dir, 0o750);
        this.madeDirs.add(dir);
      }
      writeFileSync(tmp, data, { flag: 'wx', mode: 0o660 });
      chmodSync(tmp, 0o660);
      if (stampMs !== undefined) stamp(tmp, stampMs);
      renameSync(tmp, path);
      return true;
    } catch (e) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        /* best effort */
      }
      this.fail(path, e);
      return false;
    }
  }

  /**
   * Removes `<dir>.<12 hex>` staging directories older than STALE_STAGING_MS (left by a writer killed
   * mid-write, or Ctrl-C during a synchronous write); once per directory and run, never throws.
   */
  private removeStaleStaging(dir: string): void {
    if (this.swept.has(dir)) return;
    this.swept.add(dir);
    const parent = dirname(dir);
    const name = basename(dir);
    let entries: string[];
    try {
      entries = readdirSync(parent);
    } catch {
      return; // no parent yet: nothing left over
    }
    const cutoff = this.now() - STALE_STAGING_MS;
    for (const entry of entries) {
      if (entry.length !== name.length + 13 || !entry.startsWith(name) || !/^\.[0-9a-f]{12}$/.test(entry.slice(name.length))) continue;
      const path = join(parent, entry);
      try {
        const st = statSync(path);
        if (st.isDirectory() && st.mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
      } catch {
        /* gone meanwhile, or not ours to remove */
      }
    }
  }

  private mkdirsSync(dir: string, made: Set<string>): void {
    if (made.has(dir)) return;
    this.mkdirsSync(dirname(dir), made);
    mkdirSync(dir, 0o750);
    made.add(dir);
  }

  /** Sets a file's mtime, fractions of a millisecond included (utimes keeps microseconds); returns the new mtime or undefined. */
  async touch(path: string, timeMs: number): Promise<number | undefined> {
    if (this.disabled || !isInside(this.root, path)) return undefined;
    try {
      const seconds = timeMs / 1000; // a Date would drop the fraction of a millisecond
      await fsp.utimes(path, seconds, seconds);
      return await this.mtime(path);
    } catch (e) {
      this.fail(path, e);
      return undefined;
    }
  }

  private fail(path: string, e: unknown): void {
    if (this.disabled) return;
    this.disabled = true;
    const why = e instanceof Error ? ((e as NodeJS.ErrnoException).code ?? e.message) : String(e);
    if (this.logger.enabled(1)) this.logger.warn(`discovery cache disabled: cannot write ${path}: ${why}`);
  }
}

/**
 * `mkdir -p`, making missing directories with `mode`. Not Node's `mkdirSync(dir, { recursive: true })`:
 * where mkdir fails with ENOENT although the parent exists (anywhere under /proc) Node's retries
 * forever at full CPU. This tries each level at most twice: once, and once more after its parent was made.
 */
function mkdirpSync(dir: string, mode: number): void {
  try {
    mkdirOnce(dir, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw e;
    mkdirpSync(dirname(dir), mode);
    mkdirOnce(dir, mode); // ENOENT again (under /proc) is thrown, not retried
  }
}

/** mkdir; an existing entry counts as made (a file there fails the write that follows, with ENOTDIR). */
function mkdirOnce(dir: string, mode: number): void {
  try {
    mkdirSync(dir, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/**
 * Whether a file modified at `aMs` is newer than one modified at `bMs`, judged in whole milliseconds.
 * kdyn dates its combined file as the servergroups.json it summarises (`withinSameMs`), but utimes
 * keeps at most microseconds (rounded on the way), while kubectl's files carry the file system's
 * nanoseconds: compared exactly, the summary stayed older than its layout for ever and every warm run
 * re-read the whole layout. A real rewrite by kubectl (a process of its own, after kdyn's) lands in
 * a later millisecond.
 */
export function newerMs(aMs: number, bMs: number): boolean {
  return Math.floor(aMs) > Math.floor(bMs);
}

/** A time in the same millisecond as `ms` that utimes' rounding cannot move out of it: its middle. */
export function withinSameMs(ms: number): number {
  return Math.floor(ms) + 0.5;
}

/** Sets atime and mtime. Callers pass whole seconds, which utimes stores exactly (no rounding). */
function stamp(path: string, ms: number): void {
  const t = new Date(ms);
  utimesSync(path, t, t);
}
