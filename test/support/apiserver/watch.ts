/**
 * Watch streams (`?watch=true`): chunked, newline-delimited JSON `WatchEvent`s, as the watch cache
 * serves them (recordings 29-33):
 * - resourceVersion unset or `0`: synthetic ADDED events for the current objects, then changes;
 *   an exact resourceVersion: the changes after it from the type's bounded history, or one ERROR
 *   event with a 410 `Expired` Status when it is older than the history;
 * - `sendInitialEvents=true` + `resourceVersionMatch=NotOlderThan`: the ADDED events, then a BOOKMARK
 *   annotated `k8s.io/initial-events-end: "true"`, then changes;
 * - `allowWatchBookmarks`: a BOOKMARK every `bookmarkIntervalMs` and one shortly before the timeout;
 * - label and field selectors (an object that stops or starts matching is DELETED or ADDED);
 * - Table or PartialObjectMetadata objects when the Accept header asks for them (`kubectl get -w`):
 *   the first Table carries the column definitions, later ones `null`.
 * Streams end after `timeoutSeconds` (default 1800), when the client goes away, on `closeAll()` (a
 * restart), when the CRD of their resource is deleted (after the instances' DELETED events), or by an
 * injected fault (after N events or after a time).
 */
import type { Obj } from './types.js';
import type { Backend, ResourceRequest, Target } from './objects.js';
import type { StoreEvent } from './storage.js';
import { ApiError, JSON_HEADERS, badRequest } from './status.js';
import { parseLabelSelector, matchLabels, parseFieldSelector, fieldMatcher } from './selectors.js';
import { negotiate, present, includeObjectParam } from './lists.js';
import { toTable } from './tables.js';
import { gvString, orderMetadata } from './meta.js';

/** Where a streaming response writes (server.ts adapts the HTTP response to it). */
export interface StreamSink {
  write(text: string): void;
  end(): void;
  /** Called once when the client goes away or the response ends. */
  onClose(cb: () => void): void;
}

/** A response written over time instead of at once. */
export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  stream(sink: StreamSink): void;
}

export interface WatchFaults {
  /** Close each watch stream after this many events (bookmarks included). */
  closeAfterEvents?: number;
  /** Close each watch stream this long after it started (server clock). */
  closeAfterMs?: number;
}

const DEFAULT_TIMEOUT_SECONDS = 1800; // kube-apiserver's --min-request-timeout
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** The open watch streams and their settings. */
export class Watches {
  /** Each open stream's close function, and the `group/resource` it watches. */
  private open = new Map<() => void, string>();
  /** Interval of periodic BOOKMARK events (kube-apiserver: about a minute). */
  bookmarkIntervalMs = 60_000;

  /** Number of streams currently open. */
  get count(): number {
    return this.open.size;
  }

  /** Ends every open stream (as a restarting server drops its connections). */
  closeAll(): void {
    for (const close of [...this.open.keys()]) close();
  }

  /** Ends the streams of one resource (its CRD was deleted: the storage behind them is gone). */
  closeResource(group: string, resource: string): void {
    for (const [close, id] of [...this.open]) if (id === `${group}/${resource}`) close();
  }

  track(close: () => void, id: string): () => void {
    this.open.set(close, id);
    return () => this.open.delete(close);
  }
}

function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

function invalidListOptions(field: string, detail: string): ApiError {
  return new ApiError(422, `ListOptions.meta.k8s.io "" is invalid: ${field}: Forbidden: ${detail}`, 'Invalid', {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [{ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field }],
  });
}

/** `?watch=true` on a collection (or, deprecated, on one object by name). */
export function handleWatch(b: Backend, t: Target, req: ResourceRequest): StreamResponse {
  const q = req.query;
  const want = negotiate(req.headers.accept);
  const includeObject = includeObjectParam(req);
  const bookmarks = flag(q, 'allowWatchBookmarks');
  const sendInitial = q.has('sendInitialEvents') ? flag(q, 'sendInitialEvents') : undefined;
  const match = q.get('resourceVersionMatch') ?? '';
  if (sendInitial !== undefined && match !== 'NotOlderThan') {
    throw invalidListOptions('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  }
  if (sendInitial === undefined && match) throw invalidListOptions('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  if (sendInitial && !bookmarks) throw invalidListOptions('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true');
  const rvParam = q.get('resourceVersion') ?? '';
  let fromRv: number | undefined;
  if (rvParam !== '' && rvParam !== '0' && !sendInitial) {
    if (!/^\d+$/.test(rvParam)) throw badRequest(`resourceVersion: Invalid value: "${rvParam}": must be a non-negative integer`);
    fromRv = Number(rvParam);
  }
  const timeoutRaw = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutRaw === null || timeoutRaw === '' ? DEFAULT_TIMEOUT_SECONDS : Number(timeoutRaw);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0) throw badRequest(`timeoutSeconds: Invalid value: "${timeoutRaw}": must be a non-negative integer`);

  const labelReqs = parseLabelSelector(q.get('labelSelector') ?? '');
  const fieldReqs = parseFieldSelector(q.get('fieldSelector') ?? '');
  const fieldOk = fieldReqs.length ? fieldMatcher(fieldReqs, { group: t.group, resource: t.resource, crd: t.served.crd, version: t.served.version }) : undefined;
  const matches = (o: Obj): boolean =>
    (!t.namespace || o.metadata?.namespace === t.namespace) &&
    (!t.name || o.metadata?.name === t.name) &&
    (!labelReqs.length || matchLabels(labelReqs, o.metadata?.labels)) &&
    (!fieldOk || fieldOk(o));

  let firstTable = true;
  const encodeObject = (o: Obj): string => {
    if (want.as === 'table') {
      const table = toTable(t.served, [o], {
        tableVersion: want.version,
        includeObject,
        now: b.clock.now(),
        listMeta: { resourceVersion: o.metadata?.resourceVersion },
        present: (x) => present(t, x),
      });
      if (!firstTable) table.columnDefinitions = null;
      firstTable = false;
      return JSON.stringify(table);
    }
    if (want.as === 'partial') return JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${want.version}`, metadata: orderMetadata(o.metadata) });
    return objectJson(b, t, o);
  };
  const bookmarkObject = (rv: number, initialEnd: boolean): string => {
    const metadata: Obj = { resourceVersion: String(rv) };
    if (!t.served.crd) metadata.creationTimestamp = null; // a typed, empty ObjectMeta
    if (initialEnd) metadata.annotations = { [INITIAL_EVENTS_END]: 'true' };
    if (want.as === 'table') return JSON.stringify({ kind: 'Table', apiVersion: `meta.k8s.io/${want.version}`, metadata: { resourceVersion: String(rv) }, columnDefinitions: null, rows: [] });
    const gv = gvString(t.served.group, t.served.version);
    return JSON.stringify(t.served.crd ? { apiVersion: gv, kind: t.served.kind, metadata } : { kind: t.served.kind, apiVersion: gv, metadata });
  };

  return {
    status: 200,
    headers: { ...JSON_HEADERS },
    stream(sink: StreamSink): void {
      const { store, clock, watches, faults } = b;
      const limits = { ...faults.watch }; // as set when the stream starts
      const ac = new AbortController();
      let sent = 0;
      let closed = false;
      let unsubscribe = (): void => {};
      const close = (): void => {
        if (closed) return;
        closed = true;
        ac.abort();
        unsubscribe();
        untrack();
        sink.end();
      };
      const untrack = watches.track(close, `${t.group}/${t.resource}`);
      const send = (type: string, objectJson: string): void => {
        if (closed) return;
        sink.write(`{"type":"${type}","object":${objectJson}}\n`);
        sent++;
        if (limits.closeAfterEvents !== undefined && sent >= limits.closeAfterEvents) close();
      };
      const onEvent = (e: StoreEvent): void => {
        if (e.group !== t.group || e.resource !== t.resource) return;
        const now = e.type === 'DELETED' ? false : matches(e.object);
        const before = e.prev !== undefined && e.type !== 'ADDED' && matches(e.prev);
        if (e.type === 'DELETED') {
          if (before) send('DELETED', encodeObject(e.object));
        } else if (now && before) send('MODIFIED', encodeObject(e.object));
        else if (now) send('ADDED', encodeObject(e.object));
        else if (before) send('DELETED', encodeObject(e.object));
      };
      sink.onClose(close);

      if (fromRv !== undefined) {
        const past = store.eventsSince(t.group, t.resource, fromRv);
        if (!past) {
          const oldest = store.oldestWatchableVersion(t.group, t.resource);
          const status = new ApiError(410, `too old resource version: ${fromRv} (${oldest})`, 'Expired').toStatus();
          send('ERROR', JSON.stringify(status));
          close();
          return;
        }
        for (const e of past) onEvent(e);
      } else {
        const items = store.list(t.group, t.resource, { namespace: t.namespace || undefined, filter: matches }).items;
        for (const o of items) send('ADDED', encodeObject(o));
        if (sendInitial) send('BOOKMARK', bookmarkObject(store.resourceVersion, true));
      }
      if (closed) return;
      unsubscribe = store.subscribe(onEvent);

      const deadline = clock.now() + timeoutSeconds * 1000;
      clock.sleep(timeoutSeconds * 1000, ac.signal).then(close, () => {});
      if (limits.closeAfterMs !== undefined) clock.sleep(limits.closeAfterMs, ac.signal).then(close, () => {});
      if (bookmarks) {
        const loop = async (): Promise<void> => {
          while (!closed) {
            const now = clock.now();
            // As the watch cache: periodically, and once about 2 s before the deadline.
            let next = now + watches.bookmarkIntervalMs;
            if (deadline - 2000 > now && deadline - 2000 < next) next = deadline - 2000;
            await clock.sleep(Math.max(1, next - now), ac.signal);
            send('BOOKMARK', bookmarkObject(store.resourceVersion, false));
          }
        };
        loop().catch(() => {});
      }
    },
  };
}

/** A watched object's JSON as the client sees it, cached per stored object and version. */
function objectJson(b: Backend, t: Target, o: Obj): string {
  const c = b.eventJsonCache.get(o);
  if (c && c.version === t.served.version) return c.json;
  const json = JSON.stringify(present(t, o));
  b.eventJsonCache.set(o, { version: t.served.version, json });
  return json;
}
