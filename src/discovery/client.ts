/**
 * Discovery over HTTP, as client-go's DiscoveryClient: aggregated discovery first (`/api` and `/apis`
 * with kubectl's Accept header and its 32 s timeout, sent as `?timeout=32s`, both at once), and when the server answers plain
 * JSON, legacy discovery: every group-version fetched in parallel with bounded concurrency. A
 * group-version that fails is reported in `failures`; the rest still arrive.
 */
import { ConnectionError, StatusError } from '../core/errors.js';
import { statusError } from '../transport/status.js';
import { DISCOVERY_TIMEOUT_MS } from '../core/timeouts.js';
import type { Response, Transport } from '../transport/types.js';
import { AGGREGATED_ACCEPT, isAggregatedContentType, parseAggregatedDiscovery } from './aggregated.js';
import { parseAPIGroupList, parseAPIResourceList, parseAPIVersions } from './legacy.js';
import { dropUnsafeNames, isSafeGroupVersion } from './names.js';
import type { APIGroup, DiscoveryFailure, DiscoverySnapshot } from './types.js';

/**
 * The largest discovery document kdyn reads: 64 MiB, ~200 times the aggregated `/apis` of a cluster
 * with 1,000 CRD groups; a server sending more gets a clear error instead of unbounded memory.
 */
export const MAX_DISCOVERY_DOCUMENT_BYTES = 64 * 2 ** 20;

/** Time and size limits of every discovery request (injectable so tests need not wait 32 s). */
export interface DiscoveryLimits {
  /** Used when there is no --request-timeout (default DISCOVERY_TIMEOUT_MS); sent as `?timeout=`. */
  timeoutMs?: number;
  maxDocumentBytes?: number;
}

function limited(limits: DiscoveryLimits | undefined) {
  return { fallbackTimeoutMs: limits?.timeoutMs ?? DISCOVERY_TIMEOUT_MS, maxBodyBytes: limits?.maxDocumentBytes ?? MAX_DISCOVERY_DOCUMENT_BYTES };
}
export const LEGACY_GV_ACCEPT = 'application/json, */*';
export const DEFAULT_CONCURRENCY = 24;

/** One aggregated document: its converted content and ETag, or "unchanged" after If-None-Match. */
export type AggregatedDoc = { notModified: false; etag?: string; part: DiscoverySnapshot } | { notModified: true; etag: string };

export type LiveDiscovery =
  | { mode: 'aggregated'; api: AggregatedDoc; apis: AggregatedDoc }
  | { mode: 'legacy'; snapshot: DiscoverySnapshot };

export interface FetchOptions {
  /** ETags of the cached `/api` and `/apis` documents, sent as If-None-Match. */
  etags?: { api?: string; apis?: string };
  concurrency?: number;
  limits?: DiscoveryLimits;
}

export async function fetchDiscovery(transport: Transport, opts: FetchOptions = {}): Promise<LiveDiscovery> {
  const [apiRes, apisRes] = await Promise.all([
    getRoot(transport, '/api', opts.etags?.api, opts.limits),
    getRoot(transport, '/apis', opts.etags?.apis, opts.limits),
  ]);
  const api = classify(apiRes, '/api', opts.etags?.api);
  const apis = classify(apisRes, '/apis', opts.etags?.apis);
  if (api.kind !== 'legacy' && apis.kind !== 'legacy') {
    return { mode: 'aggregated', api: toDoc(api), apis: toDoc(apis) };
  }
  // Legacy discovery (or a mixed answer): fan out over every group-version not already known.
  const snapshot: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
  const pending: APIGroup[] = [];
  for (const [c, core] of [[api, true], [apis, false]] as const) {
    if (c.kind === 'legacy') {
      const groups = core ? [{ name: '', versions: parseAPIVersions(c.doc), preferredVersion: '' }] : parseAPIGroupList(c.doc);
      for (const g of groups) {
        if (core) g.preferredVersion = g.versions[0] ?? '';
        snapshot.groups.push(g);
        pending.push(g);
      }
    } else if (c.kind === 'aggregated') {
      merge(snapshot, c.part);
    } else {
      // 304 for one document while the other changed to legacy: cannot happen with a consistent server.
      throw new StatusError({ message: `${core ? '/api' : '/apis'}: unexpected 304 Not Modified` }, 304);
    }
  }
  const safe = dropUnsafeNames(snapshot);
  await fetchGroupVersions(transport, safe, opts.concurrency ?? DEFAULT_CONCURRENCY, opts.limits);
  return { mode: 'legacy', snapshot: orderResources(safe) };
}

type Classified =
  | { kind: 'aggregated'; part: DiscoverySnapshot; etag?: string }
  | { kind: 'legacy'; doc: unknown }
  | { kind: 'not-modified'; etag: string };

function classify(res: Response, path: string, sentEtag: string | undefined): Classified {
  if (res.status === 304 && sentEtag) return { kind: 'not-modified', etag: header(res, 'etag') || sentEtag };
  if (res.status < 200 || res.status > 299) throw statusError(res);
  let doc: unknown;
  try {
    doc = JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new StatusError({ message: `${path}: the server answered with a body that is not JSON` }, res.status);
  }
  if (!isAggregatedContentType(header(res, 'content-type'))) return { kind: 'legacy', doc };
  const part = path === '/api' ? parseAggregatedDiscovery(doc, undefined) : parseAggregatedDiscovery(undefined, doc);
  const etag = header(res, 'etag');
  return etag ? { kind: 'aggregated', part: dropUnsafeNames(part), etag } : { kind: 'aggregated', part: dropUnsafeNames(part) };
}

function toDoc(c: Classified): AggregatedDoc {
  if (c.kind === 'not-modified') return { notModified: true, etag: c.etag };
  if (c.kind === 'aggregated') return c.etag ? { notModified: false, etag: c.etag, part: c.part } : { notModified: false, part: c.part };
  throw new TypeError('legacy document in aggregated result');
}

function getRoot(t: Transport, path: '/api' | '/apis', etag: string | undefined, limits: DiscoveryLimits | undefined): Promise<Response> {
  const headers: Record<string, string> = { Accept: AGGREGATED_ACCEPT };
  if (etag) headers['If-None-Match'] = etag;
  return t.request({ method: 'GET', path, headers, ...limited(limits) });
}

/** Fetches every group-version of `s.groups` not yet in `s.resources`; failures go to `s.failures`. */
export async function fetchGroupVersions(t: Transport, s: DiscoverySnapshot, concurrency: number, limits?: DiscoveryLimits): Promise<void> {
  const todo: Array<{ group: string; version: string }> = [];
  for (const g of s.groups) {
    for (const v of g.versions) {
      const gv = g.name ? `${g.name}/${v}` : v;
      if (!s.resources.has(gv) && isSafeGroupVersion(g.name, v)) todo.push({ group: g.name, version: v });
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const { group, version } = todo[next++]!;
      const gv = group ? `${group}/${version}` : version;
      const failure = await fetchOne(t, group, version, limits).then(
        (list) => {
          s.resources.set(gv, list);
          return undefined;
        },
        (e: unknown): DiscoveryFailure => ({ groupVersion: gv, reason: 'failed', message: `couldn't get resource list for ${gv}: ${describe(e)}` }),
      );
      if (failure) s.failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, todo.length)) }, worker));
  s.failures.sort((a, b) => (a.groupVersion < b.groupVersion ? -1 : a.groupVersion > b.groupVersion ? 1 : 0));
}

async function fetchOne(t: Transport, group: string, version: string, limits: DiscoveryLimits | undefined) {
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const res = await t.request({ method: 'GET', path, headers: { Accept: LEGACY_GV_ACCEPT }, ...limited(limits) });
  if (res.status < 200 || res.status > 299) throw statusError(res);
  return parseAPIResourceList(JSON.parse(res.body.toString('utf8')), group, version);
}

/** Resources in group order (as the groups list), so later consumers see a deterministic map. */
function orderResources(s: DiscoverySnapshot): DiscoverySnapshot {
  const resources = new Map<string, DiscoverySnapshot['resources'] extends Map<string, infer V> ? V : never>();
  for (const g of s.groups) {
    for (const v of g.versions) {
      const gv = g.name ? `${g.name}/${v}` : v;
      const list = s.resources.get(gv);
      if (list) resources.set(gv, list);
    }
  }
  return { groups: s.groups, resources, failures: s.failures };
}

export function merge(into: DiscoverySnapshot, part: DiscoverySnapshot): void {
  into.groups.push(...part.groups);
  for (const [k, v] of part.resources) into.resources.set(k, v);
  into.failures.push(...part.failures);
}

function header(res: Response, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function describe(e: unknown): string {
  if (e instanceof StatusError) return e.status.message ?? e.message;
  if (e instanceof ConnectionError) return e.message;
  if (e instanceof SyntaxError || e instanceof TypeError) return `malformed answer: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
