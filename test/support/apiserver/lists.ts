/**
 * Lists (paging with limit/continue, label and field selectors, across namespaces), response
 * media-type negotiation (JSON, YAML, Table, PartialObjectMetadata) and deletecollection.
 */
import { dump } from 'js-yaml';
import type { Obj, RawResponse } from './types.js';
import type { Backend, ResourceRequest, Target } from './objects.js';
import { ApiError, JSON_HEADERS, badRequest, json } from './status.js';
import { parseLabelSelector, matchLabels, parseFieldSelector, fieldMatcher } from './selectors.js';
import { toTable, type IncludeObject } from './tables.js';
import { gvString, orderMetadata, sortKeysDeep } from './meta.js';
import { storeKey } from './storage.js';

type Wanted = { as: 'json' | 'yaml' } | { as: 'table'; version: string } | { as: 'partial'; version: string };

/** The response form the Accept header asks for (first acceptable wins), 406 when none is. */
export function negotiate(accept: string | undefined): Wanted {
  if (!accept || !accept.trim()) return { as: 'json' };
  for (const raw of accept.split(',')) {
    const [type, ...params] = raw.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i).trim().toLowerCase()] = kv.slice(i + 1).trim();
    }
    const t = (type ?? '').toLowerCase();
    if (t !== 'application/json' && t !== '*/*' && t !== 'application/*' && t !== 'application/yaml') continue;
    if (p.as) {
      if (p.g !== 'meta.k8s.io' || (p.v !== 'v1' && p.v !== 'v1beta1')) continue;
      if (p.as === 'Table') return { as: 'table', version: p.v };
      if (p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList') return { as: 'partial', version: p.v };
      continue;
    }
    return { as: t === 'application/yaml' ? 'yaml' : 'json' };
  }
  throw new ApiError(406, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch', 'NotAcceptable');
}

/** A stored object as the client sees it through the requested version. */
export function present(t: Target, o: Obj): Obj {
  const gv = gvString(t.served.group, t.served.version);
  return o.apiVersion === gv ? o : { ...o, apiVersion: gv };
}

function listItem(t: Target, o: Obj): Obj {
  if (t.served.crd) return present(t, o);
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

/**
 * A list item's JSON, cached (in the server's Backend) per stored object and version. Stored
 * objects are never mutated (every write stores a new object), so an entry stays valid as long as
 * the object lives.
 */
function listItemJson(b: Backend, t: Target, o: Obj): string {
  const c = b.jsonCache.get(o);
  if (c && c.version === t.served.version) return c.json;
  let json: string;
  if (!t.served.crd && o.kind !== undefined && o.apiVersion !== undefined) {
    // Stored built-ins start with kind and apiVersion (meta.orderBuiltin): cut them off the text
    // rather than copying the object.
    const full = JSON.stringify(o);
    const prefix = `{"kind":${JSON.stringify(o.kind)},"apiVersion":${JSON.stringify(o.apiVersion)}`;
    json = full.startsWith(prefix) ? `{${full.slice(prefix.length + (full[prefix.length] === ',' ? 1 : 0))}` : JSON.stringify(listItem(t, o));
  } else json = JSON.stringify(listItem(t, o));
  b.jsonCache.set(o, { version: t.served.version, json });
  return json;
}

/** A list body with the items spliced in as cached JSON (same bytes as JSON.stringify of the whole). */
function listJson(head: Obj, itemsKey: 'items', items: string[], tail: Obj | undefined): string {
  const h = JSON.stringify(head);
  const open = `${h.slice(0, -1)}${h.length > 2 ? ',' : ''}"${itemsKey}":[${items.join(',')}]`;
  if (!tail) return `${open}}`;
  const t = JSON.stringify(tail);
  return `${open}${t.length > 2 ? ',' + t.slice(1) : '}'}`;
}

interface ContinueToken {
  rv: number;
  start: string;
}

export function encodeContinue(relativeKey: string, rv: number): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${relativeKey}\u0000` })).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  const bad = (why: string) => badRequest(`invalid continue token: continue key is not valid: ${why}`);
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(token)) throw bad('illegal base64 data at input byte 0');
  let v: any;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (!v || v.v !== 'meta.k8s.io/v1') throw bad('server does not recognize this encoding');
  if (typeof v.rv !== 'number' || v.rv === 0) throw bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof v.start !== 'string' || !v.start) throw bad('encoded key is empty');
  if (v.start.includes('..') || v.start.startsWith('/')) throw bad('path traversal attempt detected');
  return { rv: v.rv, start: v.start.replace(/\u0000$/, '') };
}

const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function includeObjectParam(req: ResourceRequest): IncludeObject {
  const v = req.query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

export function render(b: Backend, t: Target, req: ResourceRequest, status: number, want: Wanted, items: Obj[], listMeta: Obj, single: boolean): RawResponse {
  if (want.as === 'table') {
    const table = toTable(t.served, items, {
      tableVersion: want.version,
      includeObject: includeObjectParam(req),
      now: b.clock.now(),
      listMeta,
      present: (o) => present(t, o),
    });
    return json(status, table);
  }
  if (want.as === 'partial') {
    const apiVersion = `meta.k8s.io/${want.version}`;
    const pom = (o: Obj) => ({ kind: 'PartialObjectMetadata', apiVersion, metadata: orderMetadata(o.metadata) });
    if (single) return json(status, pom(items[0]!));
    return json(status, { kind: 'PartialObjectMetadataList', apiVersion, metadata: listMeta, items: items.map(pom) });
  }
  if (!single && want.as === 'json') {
    const gv = gvString(t.served.group, t.served.version);
    const kind = `${t.served.kind}List`;
    const itemStrings = items.map((o) => listItemJson(b, t, o));
    const text = t.served.crd
      ? listJson({ apiVersion: gv }, 'items', itemStrings, { kind, metadata: sortKeysDeep({ continue: '', ...listMeta }) })
      : listJson({ kind, apiVersion: gv, metadata: listMeta }, 'items', itemStrings, undefined);
    return { status, headers: { ...JSON_HEADERS }, body: text };
  }
  let body: Obj;
  if (single) body = present(t, items[0]!);
  else if (t.served.crd) {
    body = { apiVersion: gvString(t.served.group, t.served.version), items: items.map((o) => listItem(t, o)), kind: `${t.served.kind}List`, metadata: sortKeysDeep({ continue: '', ...listMeta }) };
  } else {
    body = { kind: `${t.served.kind}List`, apiVersion: gvString(t.served.group, t.served.version), metadata: listMeta, items: items.map((o) => listItem(t, o)) };
  }
  if (want.as === 'yaml') return { status, headers: { ...JSON_HEADERS, 'content-type': 'application/yaml' }, body: dump(body, { lineWidth: -1 }) };
  return json(status, body);
}

/** GET on a collection, or (with `single`) the rendering of one object in the negotiated form. */
export function handleList(b: Backend, t: Target, req: ResourceRequest, single?: { single: Obj; status: number }): RawResponse {
  const want = negotiate(req.headers.accept);
  if (single) {
    return render(b, t, req, single.status, want, [single.single], { resourceVersion: single.single.metadata?.resourceVersion }, true);
  }
  const labelReqs = parseLabelSelector(req.query.get('labelSelector') ?? '');
  const fieldReqs = parseFieldSelector(req.query.get('fieldSelector') ?? '');
  const fieldOk = fieldReqs.length ? fieldMatcher(fieldReqs, { group: t.group, resource: t.resource, crd: t.served.crd, version: t.served.version }) : undefined;
  const filter =
    labelReqs.length || fieldOk ? (o: Obj) => (!labelReqs.length || matchLabels(labelReqs, o.metadata?.labels)) && (!fieldOk || fieldOk(o)) : undefined;
  const limitRaw = req.query.get('limit');
  const limit = limitRaw ? Number.parseInt(limitRaw, 10) : 0;
  if (limitRaw && (Number.isNaN(limit) || limit < 0)) throw badRequest(`limit: Invalid value: "${limitRaw}": must be a non-negative integer`);
  const cont = req.query.get('continue');
  let rv = b.store.resourceVersion;
  let after: string | undefined;
  if (cont) {
    const rvParam = req.query.get('resourceVersion');
    if (rvParam && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const tok = decodeContinue(cont);
    after = t.namespace ? storeKey(t.namespace, tok.start) : tok.start;
    if (tok.rv > 0 && tok.rv < b.store.oldestResourceVersion) {
      const e = new ApiError(410, INCONSISTENT_CONTINUE, 'Expired');
      const status = e.toStatus();
      status.metadata = { continue: encodeContinue(tok.start, -1) };
      return json(410, status);
    }
    if (tok.rv > 0) rv = tok.rv;
  }
  const page = b.store.list(t.group, t.resource, { namespace: t.namespace || undefined, after, limit, filter });
  const listMeta: Obj = { resourceVersion: String(rv) };
  if (page.lastKey !== undefined) {
    const rel = t.namespace ? page.lastKey.slice(t.namespace.length + 1) : page.lastKey;
    listMeta.continue = encodeContinue(rel, rv);
    if (!filter) listMeta.remainingItemCount = page.remaining;
  }
  return render(b, t, req, 200, want, page.items, listMeta, false);
}

