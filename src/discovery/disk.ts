/**
 * File operations of the discovery cache, as kubectl does them (`cached/disk/cached_discovery.go`
 * writeCachedFile): directories 0750, a temp file `<name>.<rand>` in the same directory chmod 0660,
 * then rename (atomic). Every path is checked to be inside the root. Write failures never throw:
 * the first one is logged (a warning at -v>=1) and caching is switched off for the rest of the run.
 */
import { promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/log.js';
import { isInside } from './cache-dir.js';

export interface ReadResult {
  text: string;
  mtimeMs: number;
}

export class DiskStore {
  private disabled = false;
  private readonly madeDirs = new Set<string>();

  constructor(
    readonly root: string,
    private readonly logger: Logger,
  ) {}

  get writable(): boolean {
    return !this.disabled;
  }

  /** Reads a file; undefined when missing or unreadable (never throws). */
  async read(path: string): Promise<ReadResult | undefined> {
    if (!isInside(this.root, path)) return undefined;
    let fh: fsp.FileHandle | undefined;
    try {
      fh = await fsp.open(path, 'r');
      const st = await fh.stat();
      if (!st.isFile()) return undefined;
      const text = await fh.readFile('utf8');
      return { text, mtimeMs: st.mtimeMs };
    } catch {
      return undefined;
    } finally {
      await fh?.close().catch(() => undefined);
    }
  }

  /** mtime in ms, or undefined when missing. */
  async mtime(path: string): Promise<number | undefined> {
    try {
      const st = await fsp.stat(path);
      return st.isFile() ? st.mtimeMs : undefined;
    } catch {
      return undefined;
    }
  }

  /** Writes atomically; returns the new file's mtime, or undefined when the write failed (logged once). */
  async write(path: string, data: string): Promise<number | undefined> {
    if (this.disabled) return undefined;
    if (!isInside(this.root, path) || path === this.root) {
      this.fail(path, new Error('path outside the cache directory'));
      return undefined;
    }
    const dir = dirname(path);
    const tmp = `${path}.${randomBytes(6).toString('hex')}`;
    try {
      if (!this.madeDirs.has(dir)) {
        await fsp.mkdir(dir, { recursive: true, mode: 0o750 });
        this.madeDirs.add(dir);
      }
      const fh = await fsp.open(tmp, 'wx', 0o660);
      try {
        await fh.writeFile(data);
        await fh.chmod(0o660);
      } finally {
        await fh.close();
      }
      await fsp.rename(tmp, path);
      return await this.mtime(path);
    } catch (e) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      this.fail(path, e);
      return undefined;
    }
  }

  /** Sets a file's mtime (a 304 renews the cache); returns the new mtime or undefined. */
  async touch(path: string, timeMs: number): Promise<number | undefined> {
    if (this.disabled || !isInside(this.root, path)) return undefined;
    try {
      const t = new Date(timeMs);
      await fsp.utimes(path, t, t);
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
