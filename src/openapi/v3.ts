/**
 * The server's OpenAPI v3 documents (`/openapi/v3`: an index naming one document per group-version,
 * each as `serverRelativeURL` with a `?hash=` of its content), cached on disk next to discovery.
 *
 * Each run asks for the index once (kubectl's cached OpenAPI client and its HTTP disk cache do the
 * same: the index is `Cache-Control: no-cache`), conditionally only when the server gave an ETag
 * (`If-None-Match`). Never `If-Modified-Since`: Last-Modified counts whole seconds, so a CRD changed
 * in the second of the last run would be answered 304 with the old hashes (kube-apiserver's index has
 * no ETag; kubectl sends no validator for it and always gets the current one). A document whose cached copy
 * was fetched from the same `serverRelativeURL` (the same hash) is read from disk without a request:
 * kube-openapi serves hashed URLs as `public, immutable`. A document without a hash in its URL is
 * revalidated with its ETag. A hash that changed between the index and the request (the server
 * answers 301 to the current one) is followed once.
 *
 * Files, under the discovery cache root: `<root>/kdyn/<host>/openapi/v3/<key>.json` for document
 * `<key>` (`api/v1`, `apis/apps/v1`) and `.../openapi/v3/index.json`, each a header line (JSON:
 * the URL it came from and its validators) then the body as the server sent it (./files.ts). Written
 * atomically (discovery's DiskStore); a cache that cannot be written is skipped, never an error.
 */
import { KdynError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Transport } from '../transport/types.js';
import { statusError } from '../transport/status.js';
import { openApiFiles, type CachedFile } from './files.js';

/** One OpenAPI v3 document as parsed JSON (only `components.schemas` is read by kdyn). */
export interface OpenApiDocument {
  openapi?: string;
  components?: { schemas?: Record<string, unknown> };
  [key: string]: unknown;
}

export interface OpenApiV3Options {
  transport: Transport;
  /** The kubeconfig's server URL, which names the cache directory (as discovery). */
  server: string;
  cacheDir?: string | undefined;
  env: Record<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  /** Largest document read (bytes; default 64 MiB, as discovery). */
  maxBodyBytes?: number;
  /** Time limit when there is no --request-timeout (default kubectl's 32 s). */
  timeoutMs?: number;
}

export interface OpenApiV3 {
  /** The index: document key (`apis/apps/v1`) -> serverRelativeURL. One request per instance. */
  paths(): Promise<ReadonlyMap<string, string>>;
  /** One group-version's document (`groupVersion`: `v1`, `apps/v1`), from disk when its hash is unchanged. */
  groupVersion(groupVersion: string): Promise<OpenApiDocument>;
  /**
   * A value derived from one group-version's document (`name` tells derivations apart: a file name
   * part of `[a-z0-9.-]`), kept on disk next to the document and valid while the index names the same
   * document URL (hash): a warm run reads the small derived file instead of the whole document. `build`
   * returns undefined when the value cannot be derived, then nothing is kept and the document is used.
   */
  derived<T>(groupVersion: string, name: string, build: (doc: OpenApiDocument) => T | undefined): Promise<T | OpenApiDocument>;
  /**
   * A text kept on disk next to one group-version's document under `name` (as for `derived`), valid
   * while the index names the same document URL (hash): read when it is, else made by `make` (from
   * the document, through `groupVersion` or `derived`) and kept. `make` resolving to undefined keeps
   * nothing; its rejection is the result. The text is not parsed: a warm run reads it and is done.
   */
  kept(groupVersion: string, name: string, make: () => Promise<string | undefined>): Promise<string | undefined>;
  /** Requests made so far (for tests and --v logs). */
  readonly requests: number;
}

/** A name of something kept next to a document: a file name part. */
function checkName(name: string): void {
  if (!/^[a-z0-9.-]+$/.test(name)) throw new KdynError(`OpenAPI v3: invalid derived name ${JSON.stringify(name)}`);
}

/** The document key of a group-version: `api/v1` for core, `apis/<group>/<version>` otherwise. */
export function documentKey(groupVersion: string): string {
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

const DEFAULT_MAX = 64 << 20;
const DEFAULT_TIMEOUT = 32_000;

export function createOpenApiV3(opts: OpenApiV3Options): OpenApiV3 {
  const { logger } = opts;
  const files = openApiFiles(opts);
  let requests = 0;
  const get = (url: string, cached: CachedFile | undefined) => {
    const limits = { timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT, maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX };
    return fetchConditional(opts.transport, url, cached, limits, () => requests++);
  };
  let indexP: Promise<ReadonlyMap<string, string>> | undefined;

  function paths(): Promise<ReadonlyMap<string, string>> {
    return (indexP ??= (async () => {
      const cached = await files.read('index');
      const { file, fresh } = await get('/openapi/v3', cached);
      const index = parseIndex(file.body);
      // Kept only when a later run can revalidate it (an ETag) and it changed.
      if (fresh && file.etag && (file.body !== cached?.body || file.etag !== cached.etag)) {
        await files.write('index', file);
      }
      return index;
    })());
  }

  async function groupVersion(gv: string): Promise<OpenApiDocument> {
    const key = documentKey(gv);
    const index = paths();
    index.catch(() => undefined);
    // The cached copy is read and parsed while the index (which says whether it is current) is in flight.
    const cached = await files.read(key);
    const parsed = cached?.url.includes('?hash=') ? tryParseDocument(cached.body) : undefined;
    const url = (await index).get(key);
    if (!url) throw new KdynError(`the server publishes no OpenAPI v3 document for ${gv} (/openapi/v3 lists no "${key}")`);
    let file: CachedFile;
    if (cached && cached.url === url && url.includes('?hash=')) {
      if (logger.enabled(6)) logger.info(6, `OpenAPI v3 ${key}: cached (hash unchanged)`);
      if (parsed) return parsed;
      file = cached;
    } else {
      const got = await get(url, cached);
      file = got.file;
      if (got.fresh) await files.write(key, file);
    }
    return parseDocument(file.body, url);
  }

  /**
   * What is kept next to a group-version's document under `name`: its body while the index still names
   * the document (URL with its hash) it was made from, and how to keep a new one for that document.
   * The kept file is read while the index is in flight.
   */
  async function keptFor(gv: string, name: string): Promise<{ body?: string; note(): void; keep(body: string): Promise<void> }> {
    const key = documentKey(gv);
    checkName(name);
    const index = paths();
    index.catch(() => undefined);
    const keptKey = `${key}.${name}`;
    const cached = await files.read(keptKey);
    const url = (await index).get(key);
    const current = url?.includes('?hash=') ? url : undefined;
    return {
      ...(cached && current && cached.url === current ? { body: cached.body } : {}),
      note: () => {
        if (logger.enabled(6)) logger.info(6, `OpenAPI v3 ${key}: ${name} cached (hash unchanged)`);
      },
      keep: async (body) => {
        if (current) await files.write(keptKey, { url: current, body });
      },
    };
  }

  async function derived<T>(gv: string, name: string, build: (doc: OpenApiDocument) => T | undefined): Promise<T | OpenApiDocument> {
    const k = await keptFor(gv, name);
    const parsed = k.body !== undefined ? tryParseDocument(k.body) : undefined;
    if (parsed) {
      k.note();
      return parsed as T;
    }
    const doc = await groupVersion(gv);
    const value = build(doc);
    if (value === undefined) return doc;
    await k.keep(JSON.stringify(value));
    return value;
  }

  async function kept(gv: string, name: string, make: () => Promise<string | undefined>): Promise<string | undefined> {
    const k = await keptFor(gv, name);
    if (k.body !== undefined) {
      k.note();
      return k.body;
    }
    const made = await make();
    if (made !== undefined) await k.keep(made);
    return made;
  }

  return {
    paths,
    groupVersion,
    derived,
    kept,
    get requests() {
      return requests;
    },
  };
}

/**
 * GET `url` (a server-relative URL with its query) as JSON, conditionally on `cached` when it came
 * from the same URL (`fresh` false: the server answered 304); follows one 301 within /openapi/v3.
 * `counted` is called for each request sent.
 */
async function fetchConditional(
  transport: Transport,
  url: string,
  cached: CachedFile | undefined,
  limits: { timeoutMs: number; maxBodyBytes: number },
  counted: () => void,
): Promise<{ file: CachedFile; fresh: boolean }> {
  for (let hop = 0; ; hop++) {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = Object.fromEntries(new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (cached?.url === url && cached.etag) headers['If-None-Match'] = cached.etag;
    counted();
    const res = await transport.request({ method: 'GET', path, query, headers, fallbackTimeoutMs: limits.timeoutMs, maxBodyBytes: limits.maxBodyBytes });
    if (res.status === 304 && cached?.url === url) return { file: cached, fresh: false };
    const location = first(res.headers.location);
    if ((res.status === 301 || res.status === 302) && hop === 0 && location?.startsWith('/openapi/v3/')) {
      url = location;
      continue;
    }
    if (res.status !== 200) throw statusError(res);
    const etag = first(res.headers.etag);
    const lastModified = first(res.headers['last-modified']);
    return { file: { url, ...(etag && { etag }), ...(lastModified && { lastModified }), body: res.body.toString('utf8') }, fresh: true };
  }
}

/** A document's body as JSON (an object), or an error naming the URL it came from. */
/** A cached document's text as JSON, or undefined when it is not a JSON object. */
function tryParseDocument(text: string): OpenApiDocument | undefined {
  try {
    const doc = JSON.parse(text) as unknown;
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as OpenApiDocument) : undefined;
  } catch {
    return undefined;
  }
}

function parseDocument(body: string, url: string): OpenApiDocument {
  try {
    const doc = JSON.parse(body) as OpenApiDocument;
    if (!doc || typeof doc !== 'object') throw new Error('not an object');
    return doc;
  } catch {
    throw new KdynError(`GET ${url}: the server sent an OpenAPI document that is not JSON`);
  }
}

/** `{"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=..."}}}` -> key -> URL. */
export function parseIndex(text: string): Map<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new KdynError('GET /openapi/v3: the server sent an index that is not JSON');
  }
  const out = new Map<string, string>();
  const paths = (doc as { paths?: unknown })?.paths;
  if (!paths || typeof paths !== 'object') throw new KdynError('GET /openapi/v3: the index has no "paths"');
  for (const [key, v] of Object.entries(paths as Record<string, unknown>)) {
    const url = (v as { serverRelativeURL?: unknown })?.serverRelativeURL;
    if (typeof url === 'string' && url.startsWith('/')) out.set(key, url);
  }
  return out;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
