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
  creationTimestamp?: string;
  deletionTimestamp?: string;
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

/** One list response (one page when paging). Items always carry `apiVersion` and `kind`. */
export interface UnstructuredList {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: Unstructured[];
}
