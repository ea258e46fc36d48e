/**
 * The RESTMapper's public types: what a resolved resource type carries, and the async mapper
 * interface the CLI and library use (implemented by DeferredRESTMapper over cached discovery).
 */
import type { GroupVersionKind, GroupVersionResource } from '../core/gvk.js';
import type { APIResource } from '../discovery/types.js';

/** One resolved resource type: everything `get` needs to list or fetch it. */
export interface ResourceMapping {
  /** The collection to talk to: `{group: '', version: 'v1', resource: 'pods'}`. */
  readonly gvr: GroupVersionResource;
  /** Kind as served in that group-version (`Pod`). */
  readonly gvk: GroupVersionKind;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly singularName: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Subresource names served for this resource in this group-version (`status`, `scale`, `log`). */
  readonly subresources: readonly string[];
  /** The group's preferred version (first in the server's preference order). */
  readonly preferredVersion: string;
  /** All versions of the group, in the server's preference order. */
  readonly groupVersions: readonly string[];
  /** The discovery entry this mapping came from. */
  readonly apiResource: APIResource;
}

/** A mapping plus the shortcut warnings (`short name "po" could also match ...`) produced on the way. */
export interface Resolution<M = ResourceMapping> {
  readonly mapping: M;
  readonly warnings: readonly string[];
}

/**
 * Resolves what users type and what manifests say into resources. Misses throw
 * NoResourceMatchError / NoKindMatchError (src/restmapper/errors.ts); warnings go to the `warn`
 * callback the implementation was built with.
 */
export interface RESTMapper {
  /**
   * One resource type as typed (no commas, no categories): `pods`, `po`, `Pod`, `PODS`,
   * `deploy.apps`, `deployments.v1.apps`, `pods.v1.` (core), `storageclass.storage` (group prefix),
   * `Deployment.v1.apps`.
   */
  resourceFor(arg: string): Promise<ResourceMapping>;
  /**
   * Every resource a bare name (no dots: `deployments`, `deploy`, `Pod`) maps to, in every group that
   * serves it, highest priority first (kubectl's `ResourcesFor`, which `kubectl explain` uses).
   */
  resourcesFor(name: string): Promise<ResourceMapping[]>;
  /** GVK -> resource, for manifests. `version` '' means the group's preferred version first. */
  mappingForKind(group: string, version: string, kind: string): Promise<ResourceMapping>;
  /** A category's members (`all`, CRD-defined ones) as `resource` / `resource.group`, in kubectl's order; undefined if no such category. */
  expandCategory(name: string): Promise<string[] | undefined>;
  /** Invalidates discovery and rebuilds the mapper now (one refetch). Use after a 404 on a mapped collection. */
  refresh(): Promise<void>;
}
