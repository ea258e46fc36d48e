/**
 * The dynamic client: client-go's `dynamic.Interface` for TypeScript. `resource(gvr)` gives a handle,
 * `.namespace(ns)` narrows it, and the verbs act on unstructured JSON objects. No generated types,
 * no discovery here: resolve names to a GroupVersionResource with the RESTMapper first.
 *
 *   const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, { namespaced: true });
 *   for await (const page of pods.namespace('default').list({ limit: 500 })) ...
 *
 * A handle is typed by what its verbs take and return: Unstructured by default, or a type generated
 * by `kdyn types` (`client.resource<CronTab>(gvr)`); the type is the caller's claim, not checked.
 *
 * Every non-2xx answer throws a StatusError carrying the server's Status; connection failures throw
 * ConnectionError (from the transport); a bad name or namespace throws InvalidPathSegmentError
 * before any request.
 */
import { KdynError } from '../core/errors.js';
import { groupResource, type GroupVersionResource } from '../core/gvk.js';
import type { Query, RequestOptions, Response, StreamResponse, Transport } from '../transport/types.js';
import { statusError, streamStatusError } from '../transport/status.js';
import { parseRetryAfter } from '../transport/retry.js';
import { compactQuery, resourcePath } from './url.js';
import {
  PATCH_CONTENT_TYPES,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
  type PatchBody,
  type PatchOf,
  type PatchType,
  type RequestBaseOptions,
  type TableOptions,
  type UpdateOptions,
  type WatchRequestOptions,
  type WriteOptions,
} from './types.js';
import type { Table } from '../core/table.js';
import type { ObjectList, Unstructured, UnstructuredList } from '../core/unstructured.js';

export const JSON_ACCEPT = 'application/json';
/** kubectl's Accept header for server-side printing (`KC/pkg/cmd/get/get.go`). */
export const TABLE_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export interface DynamicClientOptions {
  /** Called with each `Warning:` header the server sends (deprecations, unknown fields). */
  onWarning?: (message: string) => void;
}

export interface ResourceScope {
  /**
   * Whether the resource is namespaced (from the RESTMapper's mapping). When known, it is checked:
   * a namespaced handle without a namespace may only list/watch (across all namespaces), and a
   * cluster-scoped handle ignores `.namespace()`. Unknown (undefined): the path follows the handle.
   */
  namespaced?: boolean;
}

export class DynamicClient {
  constructor(
    readonly transport: Transport,
    private readonly options: DynamicClientOptions = {},
  ) {}

  /** A handle on one resource; `.namespace(ns)` narrows it. */
  resource<T extends object = Unstructured>(gvr: GroupVersionResource, scope: ResourceScope = {}): ResourceClient<T> {
    return new ResourceClient<T>(this.transport, { ...gvr }, scope.namespaced, undefined, this.options);
  }
}

export class ResourceClient<T extends object = Unstructured> {
  constructor(
    private readonly transport: Transport,
    readonly gvr: Readonly<GroupVersionResource>,
    readonly namespaced: boolean | undefined,
    /** undefined: cluster-scoped, or all namespaces for a namespaced resource. */
    readonly namespaceName: string | undefined,
    private readonly options: DynamicClientOptions,
  ) {}

  /** The same resource in one namespace (a no-op for a cluster-scoped resource, as kubectl). */
  namespace(ns: string): ResourceClient<T> {
    if (this.namespaced === false) return this;
    return new ResourceClient<T>(this.transport, this.gvr, this.namespaced, ns, this.options);
  }

  async get(name: string, opts: GetOptions = {}): Promise<T> {
    const path = this.objectPath('get', name, opts.subresource);
    return this.json({ method: 'GET', path, query: compactQuery({ resourceVersion: opts.resourceVersion }), headers: { Accept: JSON_ACCEPT }, ...base(opts) });
  }

  /**
   * The list, page by page: one request per page (`limit`), following `continue` tokens until the
   * server sends none. Without `limit`, a single page holding everything. Drop each page after use
   * for flat memory on big lists.
   */
  async *list(opts: ListOptions = {}): AsyncGenerator<ObjectList<T>, void, undefined> {
    let cont = opts.continue;
    do {
      const page = await this.listPage({ ...opts, continue: cont });
      cont = page.metadata.continue || undefined;
      yield page;
    } while (cont);
  }

  /** One list request (no paging of its own). */
  async listPage(opts: ListOptions = {}): Promise<ObjectList<T>> {
    const path = this.collectionPath();
    const list = await this.json<UnstructuredList>({ method: 'GET', path, query: listQuery(opts), headers: { Accept: JSON_ACCEPT }, ...base(opts) });
    return normalizeList(list) as ObjectList<object> as ObjectList<T>;
  }

  /** Every page collected into one list (metadata from the last page, `continue` cleared). */
  async listAll(opts: ListOptions = {}): Promise<ObjectList<T>> {
    let result: ObjectList<T> | undefined;
    for await (const page of this.list(opts)) {
      if (!result) result = page;
      else {
        for (const item of page.items) result.items.push(item);
        result.metadata = page.metadata;
      }
    }
    const out = result!;
    if (out.metadata.continue !== undefined) out.metadata = { ...out.metadata, continue: '' };
    return out;
  }

  /** Server-side printing: the list as meta.k8s.io Tables, page by page (as `list`). */
  async *listTable(opts: TableOptions = {}): AsyncGenerator<Table, void, undefined> {
    let cont = opts.continue;
    do {
      const query = { ...listQuery({ ...opts, continue: cont }), ...compactQuery({ includeObject: opts.includeObject }) };
      const table = await this.json<Table>({ method: 'GET', path: this.collectionPath(), query, headers: { Accept: TABLE_ACCEPT }, ...base(opts) });
      assertTable(table, this.collectionPath());
      cont = table.metadata?.continue || undefined;
      yield table;
    } while (cont);
  }

  /** Server-side printing of one object: a Table with one row. */
  async getTable(name: string, opts: GetOptions & { includeObject?: TableOptions['includeObject'] } = {}): Promise<Table> {
    const path = this.objectPath('get', name, opts.subresource);
    const query = compactQuery({ resourceVersion: opts.resourceVersion, includeObject: opts.includeObject });
    const table = await this.json<Table>({ method: 'GET', path, query, headers: { Accept: TABLE_ACCEPT }, ...base(opts) });
    assertTable(table, path);
    return table;
  }

  /**
   * One watch request (`?watch=1`): the open response, its body the raw stream of newline-delimited
   * `WatchEvent`s (decoded by src/watch). Never times out on the client (the server ends it after
   * `timeoutSeconds`). A non-2xx answer throws its StatusError. Reconnecting, resuming and relisting
   * are the watcher's job (src/watch/watcher.ts).
   */
  async watchStream(opts: WatchRequestOptions = {}): Promise<StreamResponse> {
    const query = {
      ...listQuery({ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, resourceVersion: opts.resourceVersion, timeoutSeconds: opts.timeoutSeconds }),
      ...compactQuery({ allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined, watch: '1' }),
    };
    const res = await this.transport.stream({
      method: 'GET',
      path: this.collectionPath(),
      query,
      headers: { Accept: opts.table ? TABLE_ACCEPT : JSON_ACCEPT },
      signal: opts.signal,
      timeoutMs: 0,
      retryAfterMaxMs: opts.retryAfterMaxMs,
      onRetry: opts.onRetry,
    });
    this.warnings(res);
    if (res.status < 200 || res.status > 299) {
      const err = await streamStatusError(res);
      // Keep the server's Retry-After with the error (the Status body may not carry it).
      const ra = parseRetryAfter(firstHeader(res.headers['retry-after']));
      if (ra !== undefined && err.status.details?.retryAfterSeconds === undefined) {
        err.status.details = { ...err.status.details, retryAfterSeconds: ra };
      }
      throw err;
    }
    return res;
  }

  async create(obj: T, opts: CreateOptions = {}): Promise<T> {
    const path = this.collectionPath('create');
    return this.json({ method: 'POST', path, query: writeQuery(opts), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: JSON.stringify(obj), ...base(opts) });
  }

  /** PUT of the whole object; the name comes from `obj.metadata.name`. */
  async update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    const name = (obj as Unstructured).metadata?.name;
    if (!name) throw new KdynError(`update ${this.describe()}: the object has no metadata.name`);
    const path = this.objectPath('update', name, opts.subresource);
    return this.json({ method: 'PUT', path, query: writeQuery(opts), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: JSON.stringify(obj), ...base(opts) });
  }

  /**
   * PATCH with `type`: `merge` (RFC 7386), `json` (RFC 6902), `strategic` (built-ins only), or
   * `apply` (server-side apply: needs `fieldManager`; `force` takes over conflicting fields).
   * `body` is sent as is when a string, else as JSON; as an object it is typed: a patch of `T` (any
   * part of it, `null` to remove a field: `PatchOf<T>`), or for `json` a list of RFC 6902 operations.
   */
  async patch<P extends PatchType>(name: string, body: PatchBody<T, P>, type: P, opts: PatchOptions = {}): Promise<T> {
    const contentType = PATCH_CONTENT_TYPES[type];
    if (!contentType) throw new KdynError(`patch ${this.describe()}: unknown patch type ${JSON.stringify(type)}`);
    const path = this.objectPath('patch', name, opts.subresource);
    const query = { ...writeQuery(opts), ...compactQuery({ force: opts.force === undefined ? undefined : String(opts.force) }) };
    return this.json({ method: 'PATCH', path, query, headers: { Accept: JSON_ACCEPT, 'Content-Type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body), ...base(opts) });
  }

  /**
   * Server-side apply of a whole object (a PATCH of type `apply` named by `obj.metadata.name`), as
   * `kubectl apply --server-side`: `fieldManager` defaults to `kdyn`.
   */
  async apply(obj: T, opts: PatchOptions = {}): Promise<T> {
    const name = (obj as Unstructured).metadata?.name;
    if (!name) throw new KdynError(`apply ${this.describe()}: the object has no metadata.name`);
    return this.patch(name, obj as PatchOf<T>, 'apply', { ...opts, fieldManager: opts.fieldManager ?? 'kdyn' });
  }

  /**
   * DELETE of one object, by name or as the object itself (its `metadata.name`); resolves with what
   * the server answered: the object being deleted (finalizers pending), or a Success Status.
   */
  async delete(nameOrObj: string | T, opts: DeleteOptions = {}): Promise<T | Unstructured> {
    const name = typeof nameOrObj === 'string' ? nameOrObj : (nameOrObj as Unstructured).metadata?.name;
    if (!name) throw new KdynError(`delete ${this.describe()}: the object has no metadata.name`);
    const path = this.objectPath('delete', name);
    return this.json({ method: 'DELETE', path, query: compactQuery({ dryRun: opts.dryRun ? 'All' : undefined }), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: deleteBody(opts), ...base(opts) });
  }

  /**
   * DELETE of the collection (every object the selectors match, in this namespace, or all of a
   * cluster-scoped resource); resolves with the server's answer (the deleted objects' list, or a Status).
   */
  async deleteCollection(opts: DeleteOptions & Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {}): Promise<ObjectList<T> | Unstructured> {
    const path = this.collectionPath('deletecollection');
    const query = { ...listQuery({ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector }), ...compactQuery({ dryRun: opts.dryRun ? 'All' : undefined }) };
    return this.json({ method: 'DELETE', path, query, headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: deleteBody(opts), ...base(opts) });
  }

  /** `configmaps` or `crontabs.stable.example.com`, with the namespace when set (for messages). */
  describe(): string {
    const gr = groupResource(this.gvr.resource, this.gvr.group);
    return this.namespaceName ? `${gr} in namespace "${this.namespaceName}"` : gr;
  }

  /** The collection path this handle lists (for logs and tests). */
  collectionPath(verb?: string): string {
    if (verb && this.namespaced === true && !this.namespaceName) {
      throw new KdynError(`${verb} ${this.describe()}: a namespace is required for a namespaced resource`);
    }
    return resourcePath({ gvr: this.gvr, namespace: this.namespaced === false ? undefined : this.namespaceName });
  }

  private objectPath(verb: string, name: string, subresource?: string): string {
    if (this.namespaced === true && !this.namespaceName) {
      throw new KdynError(`${verb} ${this.describe()} "${name}": a namespace is required for a namespaced resource`);
    }
    return resourcePath({ gvr: this.gvr, namespace: this.namespaced === false ? undefined : this.namespaceName, name, subresource });
  }

  private async json<R = T>(req: RequestOptions): Promise<R> {
    const res = await this.transport.request(req);
    this.warnings(res);
    if (res.status < 200 || res.status > 299) throw statusError(res);
    try {
      return JSON.parse(res.body.toString('utf8')) as R;
    } catch {
      throw new KdynError(`${req.method ?? 'GET'} ${res.url}: the server sent a body that is not JSON (${res.headers['content-type'] ?? 'no content-type'})`);
    }
  }

  private warnings(res: Pick<Response, 'headers'>): void {
    const onWarning = this.options.onWarning;
    const h = res.headers.warning;
    if (!onWarning || !h) return;
    for (const w of parseWarningHeaders(Array.isArray(h) ? h : [h])) onWarning(w);
  }
}

function deleteBody(opts: DeleteOptions): string {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
  if (opts.preconditions) body.preconditions = opts.preconditions;
  if (opts.dryRun) body.dryRun = ['All'];
  return JSON.stringify(body);
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function base(opts: RequestBaseOptions): Pick<RequestOptions, 'signal' | 'timeoutMs' | 'retryAfterMaxMs' | 'onRetry'> {
  const out: Pick<RequestOptions, 'signal' | 'timeoutMs' | 'retryAfterMaxMs' | 'onRetry'> = {};
  if (opts.signal) out.signal = opts.signal;
  if (opts.timeoutMs !== undefined) out.timeoutMs = opts.timeoutMs;
  if (opts.retryAfterMaxMs !== undefined) out.retryAfterMaxMs = opts.retryAfterMaxMs;
  if (opts.onRetry) out.onRetry = opts.onRetry;
  return out;
}

export function listQuery(opts: ListOptions): Query {
  return compactQuery({
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    limit: opts.limit ? opts.limit : undefined,
    continue: opts.continue,
    timeoutSeconds: opts.timeoutSeconds,
  });
}

function writeQuery(opts: WriteOptions): Query {
  return compactQuery({ dryRun: opts.dryRun ? 'All' : undefined, fieldManager: opts.fieldManager, fieldValidation: opts.fieldValidation });
}

/**
 * List items from the server may lack `apiVersion`/`kind` (built-ins omit them); fill them in from
 * the list's own (`ConfigMapList` -> `ConfigMap`), as client-go's UnstructuredList decoding does.
 */
export function normalizeList(list: UnstructuredList): UnstructuredList {
  if (!list || typeof list !== 'object' || !Array.isArray(list.items)) {
    list = { ...(list ?? {}), items: [] } as UnstructuredList;
  }
  list.metadata ??= {};
  const kind = typeof list.kind === 'string' && list.kind.endsWith('List') ? list.kind.slice(0, -4) : undefined;
  for (const item of list.items) {
    if (item.apiVersion === undefined && list.apiVersion) item.apiVersion = list.apiVersion;
    if (item.kind === undefined && kind) item.kind = kind;
  }
  return list;
}

function assertTable(t: Table, path: string): void {
  if (!t || t.kind !== 'Table' || !Array.isArray(t.columnDefinitions)) {
    throw new KdynError(`GET ${path}: the server did not answer with a meta.k8s.io Table (kind ${JSON.stringify((t as { kind?: unknown })?.kind)})`);
  }
  t.rows ??= [];
  t.metadata ??= {};
}

/** RFC 7234 warn-text from `299 - "text"` headers (several may be joined with commas). */
export function parseWarningHeaders(values: readonly string[]): string[] {
  const out: string[] = [];
  const re = /\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)/gy;
  for (const v of values) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    let matched = false;
    while ((m = re.exec(v))) {
      matched = true;
      out.push(m[3]!.replace(/\\(.)/g, '$1'));
      if (re.lastIndex >= v.length) break;
    }
    if (!matched && v.trim()) out.push(v.trim());
  }
  return out;
}
