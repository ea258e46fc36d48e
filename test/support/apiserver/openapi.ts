/**
 * `/openapi/v3` (the index: `paths` -> `serverRelativeURL` with a `?hash=` of each document, as in
 * recording 50) and the documents it names. Group-version documents come from openapi-doc.ts and are
 * cached by the identity of the resources they describe, so a CRD change rebuilds only its own
 * group-version. A request with a stale hash is redirected (301) to the current one, and a request with
 * the current hash is cacheable for good (`public, immutable`), as kube-openapi does.
 *
 * `/openapi/v2` is served too, but empty (a Swagger 2.0 document without paths or definitions, as JSON
 * or as the gnostic protobuf kubectl asks for): kubectl's client-side validation falls back to it for a
 * group-version the v3 index lacks (a CRD applied in the same run), skips kinds it does not describe,
 * and fails without it ("the server could not find the requested resource") where a real server's
 * kubectl reaches its mapping error ("ensure CRDs are installed first").
 *
 * Deviation from a real server: built-in kinds have a minimal schema (apiVersion, kind, metadata), not
 * the full generated one, and /openapi/v2 describes nothing; CRD kinds carry their
 * spec.versions[].schema.openAPIV3Schema in v3. kubectl does not validate client-side because every
 * PATCH operation declares `fieldValidation`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import type { CatalogResource, CatalogView } from './catalog.js';
import { groupVersionDocument } from './openapi-doc.js';
import { notFound } from './discovery.js';
import type { Obj, RawResponse } from './types.js';

export type OpenApiHandler = (method: string, path: string, headers: IncomingHttpHeaders) => RawResponse | undefined;

interface Doc {
  body: string;
  hash: string;
}

const NO_CACHE = 'no-cache, private';
const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;

/** Answers `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<key>`; undefined for other paths. */
export function createOpenApiHandler(view: CatalogView, recorded?: ReadonlyMap<string, Obj>): OpenApiHandler {
  const gvCache = new Map<string, { resources: readonly CatalogResource[]; doc: Doc }>();
  const staticCache = new Map<string, Doc>();
  let index: { revision: number; docs: Map<string, () => Doc>; body: string } | undefined;

  const makeDoc = (value: Obj): Doc => {
    const body = JSON.stringify(value);
    return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
  };
  const staticDoc = (key: string, build: () => Obj) => () => {
    let d = staticCache.get(key);
    if (!d) staticCache.set(key, (d = makeDoc(build())));
    return d;
  };

  /** key -> lazy document, for the current revision. */
  const current = () => {
    if (index?.revision === view.revision()) return index;
    const docs = new Map<string, () => Doc>();
    docs.set('.well-known/openid-configuration', staticDoc('.well-known', () => simpleDoc('/.well-known/openid-configuration', 'getServiceAccountIssuerOpenIDConfiguration', 'WellKnown')));
    docs.set('openid/v1/jwks', staticDoc('jwks', () => simpleDoc('/openid/v1/jwks', 'getServiceAccountIssuerOpenIDKeyset', 'openid')));
    docs.set('version', staticDoc('version', () => simpleDoc('/version/', 'getCodeVersion', 'version')));
    docs.set('api', staticDoc('api', () => simpleDoc('/api/', 'getCoreAPIVersions', 'core')));
    docs.set('apis', staticDoc('apis', () => simpleDoc('/apis/', 'getAPIVersions', 'apis')));
    for (const g of view.groups()) {
      if (g.name && g.builtin) docs.set(`apis/${g.name}`, staticDoc(`apis/${g.name}`, () => simpleDoc(`/apis/${g.name}/`, `get${g.name}APIGroup`, g.name)));
      for (const v of g.versions) {
        const key = g.name ? `apis/${g.name}/${v.version}` : `api/${v.version}`;
        docs.set(key, () => {
          const hit = gvCache.get(key);
          if (hit && sameResources(hit.resources, v.resources)) return hit.doc;
          const doc = makeDoc(withRecorded(groupVersionDocument(g, v), recorded?.get(key)));
          gvCache.set(key, { resources: v.resources, doc });
          return doc;
        });
      }
    }
    for (const key of gvCache.keys()) if (!docs.has(key)) gvCache.delete(key);
    const paths: Obj = {};
    for (const key of [...docs.keys()].sort()) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${docs.get(key)!().hash}` };
    index = { revision: view.revision(), docs, body: JSON.stringify({ paths }) };
    return index;
  };

  return (method, rawPath, headers) => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const q = rawPath.indexOf('?');
    const path = q < 0 ? rawPath : rawPath.slice(0, q);
    if (path === '/openapi/v2') return openApiV2(headers);
    if (!rawPath.startsWith('/openapi/v3')) return undefined;
    const query = new URLSearchParams(q < 0 ? '' : rawPath.slice(q + 1));
    if (path === '/openapi/v3' || path === '/openapi/v3/') {
      return { status: 200, headers: { 'accept-ranges': 'bytes', 'cache-control': NO_CACHE, 'content-type': 'text/plain; charset=utf-8' }, body: current().body };
    }
    if (!path.startsWith('/openapi/v3/')) return undefined;
    const key = path.slice('/openapi/v3/'.length);
    const get = current().docs.get(key);
    if (!get) return notFound();
    const doc = get();
    const etag = `"${doc.hash}"`;
    const hash = query.get('hash');
    if (hash && hash !== doc.hash) {
      const location = `/openapi/v3/${key}?hash=${doc.hash}`;
      return { status: 301, headers: { location, 'content-type': 'text/html; charset=utf-8', 'cache-control': NO_CACHE }, body: `<a href="${location}">Moved Permanently</a>.\n\n` };
    }
    const cacheHeaders: Record<string, string> = hash
      ? { 'cache-control': 'public, immutable', expires: new Date(Date.now() + ONE_YEAR_MS).toUTCString() }
      : { 'cache-control': NO_CACHE };
    const inm = headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim() === etag)) return { status: 304, headers: { ...cacheHeaders, etag, vary: 'Accept' }, body: '' };
    return { status: 200, headers: { ...cacheHeaders, 'accept-ranges': 'bytes', 'content-type': 'application/json', etag, vary: 'Accept' }, body: doc.body };
  };
}

/** kubectl accepts `...spec.v2@v1.0+protobuf`; kube-openapi answers with this (Go's mime parser rejects the `@`). */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_INFO = { title: 'Kubernetes', version: 'v1.32.0' };

/** The empty v2 document: JSON, or gnostic's openapi_v2.Document in protobuf when Accept asks for it. */
function openApiV2(headers: IncomingHttpHeaders): RawResponse {
  const common = { 'accept-ranges': 'bytes', 'cache-control': NO_CACHE, vary: 'Accept' };
  if (/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/.test(String(headers.accept ?? ''))) {
    return { status: 200, headers: { ...common, 'content-type': V2_PROTOBUF }, body: v2Protobuf() };
  }
  return { status: 200, headers: { ...common, 'content-type': 'application/json' }, body: JSON.stringify({ swagger: '2.0', info: V2_INFO, paths: {} }) };
}

/** openapi_v2.Document{swagger: "2.0", info: {title}}: Document field 1 (string) and 2 (Info, whose field 1 is the title). */
function v2Protobuf(): Buffer {
  const field = (n: number, bytes: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, field(1, Buffer.from(V2_INFO.title)))]);
}

/** The generated document with a recorded one's paths and component schemas put over it. */
function withRecorded(doc: Obj, recorded: Obj | undefined): Obj {
  if (!recorded) return doc;
  return {
    ...doc,
    paths: { ...doc.paths, ...recorded.paths },
    components: { ...doc.components, schemas: { ...doc.components?.schemas, ...recorded.components?.schemas } },
  };
}

function sameResources(a: readonly CatalogResource[], b: readonly CatalogResource[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

function simpleDoc(path: string, operationId: string, tag: string): Obj {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths: { [path]: { get: { tags: [tag], description: operationId, operationId, responses: { '200': { description: 'OK' }, '401': { description: 'Unauthorized' } } } } },
    components: { securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } } },
  };
}
