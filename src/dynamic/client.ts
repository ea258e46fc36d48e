/**
 * The dynamic client: client-go's `dynamic.Interface` for TypeScript. `resource(gvr)` gives a handle,
 * `.namespace(ns)` narrows it, and the verbs act on unstructured JSON objects. No generated types,
 * no discovery here: resolve names to a GroupVersionResource with the RESTMapper first.
 *
 *   const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, { namespaced: true });
 *   for await (const page of pods.namespace('default').list({ limit: 500 })) ...
 *
 * Every non-2xx answer throws a StatusError carrying the server's Status; connection failures throw
 * ConnectionError (from the transport); a bad name or namespace throws InvalidPathSegmentError
 * before any request.
 */
import { KdynError } from '../core/errors.js';
import { groupResource, type GroupVersionResource } from '../core/gvk.js';
import type { Query, RequestOptions, Response, Transport } from '../transport/types.js';
import { statusError } from '../transport/status.js';
import { compactQuery, resourcePath } from './url.js';
import {
  PATCH_CONTENT_TYPES,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
  type PatchType,
  type TableOptions,
  type UpdateOptions,
  type WriteOptions,
} from './types.js';
import type { Table } from '../core/table.js';
import type { Unstructured, UnstructuredList } from '../core/unstructured.js';

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
  resource(gvr: GroupVersionResource, scope: ResourceScope = {}): ResourceClient {
    return new ResourceClient(this.transport, { ...gvr }, scope.namespaced, undefined, this.options);
  }
}

export class ResourceClient {
  constructor(
    private readonly transport: Transport,
    readonly gvr: Readonly<GroupVersionResource>,
    readonly namespaced: boolean | undefined,
    /** undefined: cluster-scoped, or all namespaces for a namespaced resource. */
    readonly namespaceName: string | undefined,
    private readonly options: DynamicClientOptions,
  ) {}

  /** The same resource in one namespace (a no-op for a cluster-scoped resource, as kubectl). */
  namespace(ns: string): ResourceClient {
    if (this.namespaced === false) return this;
    return new ResourceClient(this.transport, this.gvr, this.namespaced, ns, this.options);
  }

  async get(name: string, opts: GetOptions = {}): Promise<Unstructured> {
    const path = this.objectPath('get', name, opts.subresource);
    return this.json({ method: 'GET', path, query: compactQuery({ resourceVersion: opts.resourceVersion }), headers: { Accept: JSON_ACCEPT }, ...base(opts) });
  }

  /**
   * The list, page by page: one request per page (`limit`), following `continue` tokens until the
   * server sends none. Without `limit`, a single page holding everything. Drop each page after use
   * for flat memory on big lists.
   */
  async *list(opts: ListOptions = {}): AsyncGenerator<UnstructuredList, void, undefined> {
    let cont = opts.continue;
    do {
      const page = await this.listPage({ ...opts, continue: cont });
      cont = page.metadata.continue || undefined;
      yield page;
    } while (cont);
  }

  /** One list request (no paging of its own). */
  async listPage(opts: ListOptions = {}): Promise<UnstructuredList> {
    const path = this.collectionPath();
    const list = await this.json<UnstructuredList>({ method: 'GET', path, query: listQuery(opts), headers: { Accept: JSON_ACCEPT }, ...base(opts) });
    return normalizeList(list);
  }

  /** Every page collected into one list (metadata from the last page, `continue` cleared). */
  async listAll(opts: ListOptions = {}): Promise<UnstructuredList> {
    let result: UnstructuredList | undefined;
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

  async create(obj: Unstructured, opts: CreateOptions = {}): Promise<Unstructured> {
    const path = this.collectionPath('create');
    return this.json({ method: 'POST', path, query: writeQuery(opts), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: JSON.stringify(obj), ...base(opts) });
  }

  /** PUT of the whole object; the name comes from `obj.metadata.name`. */
  async update(obj: Unstructured, opts: UpdateOptions = {}): Promise<Unstructured> {
    const name = obj.metadata?.name;
    if (!name) throw new KdynError(`update ${this.describe()}: the object has no metadata.name`);
    const path = this.objectPath('update', name, opts.subresource);
    return this.json({ method: 'PUT', path, query: writeQuery(opts), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: JSON.stringify(obj), ...base(opts) });
  }

  /**
   * PATCH with `type`: `merge` (RFC 7386), `json` (RFC 6902), `strategic` (built-ins only), or
   * `apply` (server-side apply: needs `fieldManager`; `force` takes over conflicting fields).
   * `body` is sent as is when a string, else as JSON.
   */
  async patch(name: string, body: unknown, type: PatchType, opts: PatchOptions = {}): Promise<Unstructured> {
    const contentType = PATCH_CONTENT_TYPES[type];
    if (!contentType) throw new KdynError(`patch ${this.describe()}: unknown patch type ${JSON.stringify(type)}`);
    const path = this.objectPath('patch', name, opts.subresource);
    const query = { ...writeQuery(opts), ...compactQuery({ force: opts.force === undefined ? undefined : String(opts.force) }) };
    return this.json({ method: 'PATCH', path, query, headers: { Accept: JSON_ACCEPT, 'Content-Type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body), ...base(opts) });
  }

  /** DELETE; resolves with what the server answered (the object being deleted, or a Success Status). */
  async delete(name: string, opts: DeleteOptions = {}): Promise<Unstructured> {
    const path = this.objectPath('delete', name);
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.dryRun) body.dryRun = ['All'];
    return this.json({ method: 'DELETE', path, query: compactQuery({ dryRun: opts.dryRun ? 'All' : undefined }), headers: { Accept: JSON_ACCEPT, 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...base(opts) });
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

  private async json<T = Unstructured>(req: RequestOptions): Promise<T> {
    const res = await this.transport.request(req);
    this.warnings(res);
    if (res.status < 200 || res.status > 299) throw statusError(res);
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw new KdynError(`${req.method ?? 'GET'} ${res.url}: the server sent a body that is not JSON (${res.headers['content-type'] ?? 'no content-type'})`);
    }
  }

  private warnings(res: Response): void {
    const onWarning = this.options.onWarning;
    const h = res.headers.warning;
    if (!onWarning || !h) return;
    for (const w of parseWarningHeaders(Array.isArray(h) ? h : [h])) onWarning(w);
  }
}

function base(opts: { signal?: AbortSignal; timeoutMs?: number }): Pick<RequestOptions, 'signal' | 'timeoutMs'> {
  const out: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {};
  if (opts.signal) out.signal = opts.signal;
  if (opts.timeoutMs !== undefined) out.timeoutMs = opts.timeoutMs;
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
