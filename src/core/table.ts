/**
 * The meta.k8s.io/v1 Table a server returns for `Accept: ...;as=Table` (server-side printing):
 * what `get` prints, whatever the resource.
 */
import type { ListMeta, Unstructured } from './unstructured.js';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description?: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  conditions?: unknown[];
  /** PartialObjectMetadata (includeObject=Metadata, the server default), the object (Object), or absent (None). */
  object?: Unstructured;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}
