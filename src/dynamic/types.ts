/**
 * The dynamic client's option types. The objects it returns are in core/unstructured.ts and
 * core/table.ts.
 */
import type { RetryCause } from '../transport/types.js';

export type { RetryCause };

export interface RequestBaseOptions {
  signal?: AbortSignal;
  /** Overrides the transport's request timeout for this call (ms, 0 = none). */
  timeoutMs?: number;
  /** Caps the transport's wait on a Retry-After before it sends the request again (ms). */
  retryAfterMaxMs?: number;
  /** Told each time the transport sends the request again, with why (a watch counts these as failures). */
  onRetry?: (why: RetryCause) => void;
}

export interface GetOptions extends RequestBaseOptions {
  resourceVersion?: string;
  /** `status`, `scale`, ... */
  subresource?: string;
}

export interface ListOptions extends RequestBaseOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Page size; 0 or absent: the server's whole list in one response. */
  limit?: number;
  /** Start from this continue token (list() then follows the next ones). */
  continue?: string;
  timeoutSeconds?: number;
}

export interface WatchRequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version ('' or absent: from now, with synthetic ADDED events for what exists). */
  resourceVersion?: string;
  /** The server ends the stream after this many seconds. */
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  /** Ask for server-side printed events (each object a one-row meta.k8s.io Table). */
  table?: boolean;
  signal?: AbortSignal;
  /** Caps the transport's wait on a Retry-After before it sends the request again (ms). */
  retryAfterMaxMs?: number;
  /** Told each time the transport sends the request again, with why (a watch counts these as failures). */
  onRetry?: (why: RetryCause) => void;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions extends ListOptions {
  /** What each row's `object` holds; the server's default is `Metadata` (PartialObjectMetadata). */
  includeObject?: IncludeObject;
}

export interface WriteOptions extends RequestBaseOptions {
  /** Server-side dry run (`dryRun=All`): validated and defaulted, not persisted. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  subresource?: string;
}

export type CreateOptions = Omit<WriteOptions, 'subresource'>;
export type UpdateOptions = WriteOptions;

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/** merge: RFC 7386; json: RFC 6902; strategic: Kubernetes strategic merge; apply: server-side apply. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/**
 * A merge, strategic-merge or server-side-apply patch of `T`: any part of it, at any depth (arrays
 * of patches of their items: strategic merge and apply merge lists by key), and `null` where a field
 * is removed (RFC 7386). For `Unstructured`, anything goes.
 */
export type PatchOf<T> = T extends readonly (infer E)[] ? ReadonlyArray<PatchOf<E>> : T extends object ? { [K in keyof T]?: PatchOf<T[K]> | null } : T;

/** One RFC 6902 operation of a JSON patch (`path` and `from` are JSON pointers). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** The body of a patch of type `P` on a `T`: its JSON text as is, or the patch as an object (a JSON patch: its operations). */
export type PatchBody<T, P extends PatchType> = string | (P extends 'json' ? readonly JsonPatchOperation[] : PatchOf<T>);

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface DeleteOptions extends RequestBaseOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}
