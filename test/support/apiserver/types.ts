/**
 * Contracts between the local API server's parts. server.ts/objects.ts/storage.ts (the request
 * pipeline and state) consume the Catalog; catalog.ts/discovery.ts/openapi.ts implement it.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type Obj = Record<string, any>;

export interface SubresourceInfo {
  name: string; // 'status', 'scale', ...
  kind?: { group: string; version: string; kind: string };
  verbs: string[];
}

/** One resource in one served group-version. */
export interface ServedResource {
  group: string; // '' = core
  version: string;
  resource: string; // plural
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: SubresourceInfo[];
  /** Set for custom resources: the CRD object (for printer columns, schema, storage version). */
  crd?: Obj;
}

/** A response the pipeline sends as is. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface Catalog {
  /** The resource served at /api(s)/{group}/{version}/{resource}, if any. */
  lookup(group: string, version: string, resource: string): ServedResource | undefined;
  /** All resources of a group (any version) by plural name, for cross-version storage keys. */
  versionsOf(group: string, resource: string): ServedResource[];
  /** The resource a kind maps to in a group-version (for creating objects from manifests). */
  byKind(group: string, version: string, kind: string): ServedResource | undefined;
  /** Called by the pipeline after a CustomResourceDefinition is created, updated or deleted. */
  crdChanged(crd: Obj, deleted: boolean): void;
  /**
   * Answers discovery and OpenAPI paths (`/version`, `/api`, `/apis`, `/api/v1`, `/apis/G/V`,
   * `/openapi/v3...`); undefined when `path` is not one of them.
   */
  serveDiscovery(method: string, path: string, headers: IncomingHttpHeaders): RawResponse | undefined;
}
