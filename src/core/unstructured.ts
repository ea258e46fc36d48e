/**
 * Unstructured Kubernetes objects: plain JSON (what the server sent, parsed), never model classes,
 * so any resource, built-in or custom, fits. Shared by the dynamic client, the printers and the
 * commands (apimachinery's unstructured.Unstructured).
 */

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** null in the templates of workloads (Go marshals a zero time as null). */
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<Record<string, unknown>>;
  finalizers?: string[];
  managedFields?: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** Any Kubernetes object as JSON. */
export interface Unstructured {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  /** Token for the next page; '' or absent on the last one. */
  continue?: string;
  remainingItemCount?: number;
  [key: string]: unknown;
}

/**
 * One list response (one page when paging). Items always carry `apiVersion` and `kind`. `T` is the
 * item type: Unstructured, or a type `kdyn types` generated.
 */
export interface ObjectList<T extends object = Unstructured> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export type UnstructuredList = ObjectList<Unstructured>;

/**
 * A kind's `apiVersion` and `kind`, tagged with the type of its objects: what the `kinds` map that
 * `kdyn types` generates holds, so a handle made from it is typed (`connection.kind(kinds[...])`).
 */
export interface TypedKind<T extends object = Unstructured> {
  readonly apiVersion: string;
  readonly kind: string;
  /** Never set: it only carries `T` for type inference. */
  readonly __type?: T;
}

/** The object without `metadata.managedFields` (a copy; the object itself when it has none; never changed in place). */
export function withoutManagedFields(obj: Unstructured): Unstructured {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
