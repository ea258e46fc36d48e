/**
 * The OpenAPI v3 cache files of one server (the layout is at the top of ./v3.ts): under the discovery
 * cache root, `<root>/kdyn/<host>/openapi/v3/<key>.json`, a header line (the URL the body came from
 * and its validators) then the body as the server sent it. Written atomically (discovery's
 * DiskStore); a file that cannot be read or written counts as none, never an error.
 */
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { cachePaths, isInside, resolveCacheRoot } from '../discovery/cache-dir.js';
import { DiskStore } from '../discovery/disk.js';

/** One cached response: where it came from, its validators, its body. */
export interface CachedFile {
  url: string;
  etag?: string;
  lastModified?: string;
  body: string;
}

export interface OpenApiFiles {
  /** The file of `key` (`index`, `api/v1`, `apis/apps/v1`), when there is a valid one. */
  read(key: string): Promise<CachedFile | undefined>;
  /** Writes the file of `key` (nothing when the cache has no directory). */
  write(key: string, f: CachedFile): Promise<void>;
}

export function openApiFiles(o: { server: string; cacheDir?: string | undefined; env: Record<string, string | undefined>; clock: Clock; logger: Logger }): OpenApiFiles {
  let located: Promise<{ store: DiskStore; dir: string } | undefined> | undefined;
  const location = () =>
    (located ??= resolveCacheRoot({ cacheDir: o.cacheDir, env: o.env }).then(
      (root) => {
        const paths = cachePaths(root, o.server);
        return paths && { store: new DiskStore(root, o.logger, () => o.clock.now()), dir: join(paths.kdynDir, 'openapi', 'v3') };
      },
      () => undefined,
    ));
  return {
    async read(key) {
      const loc = await location();
      const path = loc && fileFor(loc.dir, key);
      const file = path && (await loc.store.read(path));
      if (!file) return undefined;
      const nl = file.text.indexOf('\n');
      if (nl < 0) return undefined;
      try {
        const head = JSON.parse(file.text.slice(0, nl)) as Partial<CachedFile>;
        if (typeof head.url !== 'string') return undefined;
        return { ...head, url: head.url, body: file.text.slice(nl + 1) };
      } catch {
        return undefined;
      }
    },
    async write(key, f) {
      const loc = await location();
      const path = loc && fileFor(loc.dir, key);
      if (!path) return;
      const head: Omit<CachedFile, 'body'> = { url: f.url, ...(f.etag && { etag: f.etag }), ...(f.lastModified && { lastModified: f.lastModified }) };
      loc.store.writeFileSync(path, `${JSON.stringify(head)}\n${f.body}`);
    },
  };
}

/** The file of `key` inside `dir`; undefined for a key that would leave it (empty, `.` or `..` segments). */
function fileFor(dir: string, key: string): string | undefined {
  const p = join(dir, `${key}.json`);
  return isInside(dir, p) && !key.split('/').some((s) => s === '' || s === '.' || s === '..') ? p : undefined;
}
