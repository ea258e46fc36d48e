/**
 * What discovery knows about a server, in the shape the RESTMapper and `api-resources` consume.
 * Both aggregated (apidiscovery.k8s.io/v2) and legacy discovery are converted to this.
 */

export interface APIResource {
  /** Plural name, or `parent/sub` for a subresource (`pods/status`). */
  name: string;
  /** Singular name as served ('' when the server gave none). */
  singularName: string;
  namespaced: boolean;
  /** Group and version this entry was served under. */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /**
   * The group/version of `kind` when it differs from the entry's own (the server's `responseKind`
   * or legacy `group`/`version` fields), e.g. `autoscaling`/`v1` for `deployments/scale` (kind Scale).
   * Absent means `group`/`version`.
   */
  kindGroup?: string;
  kindVersion?: string;
}

export interface APIGroup {
  /** '' for the core group (served under /api). */
  name: string;
  /** Versions in the server's preference order; the first is the preferred version. */
  versions: string[];
  preferredVersion: string;
}

export interface DiscoveryFailure {
  /** `v1` or `group/version`. */
  groupVersion: string;
  /** `failed`: could not be fetched (e.g. 503 from an aggregated API); `stale`: aggregated discovery marked it Stale. */
  reason: 'failed' | 'stale';
  message: string;
}

export interface DiscoverySnapshot {
  /** Groups in server order, the core group ('') first. */
  groups: APIGroup[];
  /** Resources per group-version key (`v1`, `apps/v1`), subresources included as `parent/sub`. */
  resources: Map<string, APIResource[]>;
  /** Group-versions that are missing or stale in this snapshot. Partial results are normal. */
  failures: DiscoveryFailure[];
}

export interface SnapshotOptions {
  /** Answer from the disk cache only, whatever its age; never contact the server. */
  cachedOnly?: boolean;
}

/** Discovery with a cache in front (kubectl's CachedDiscoveryInterface). */
export interface CachedDiscovery {
  snapshot(options?: SnapshotOptions): Promise<DiscoverySnapshot>;
  /**
   * Optional fast path for one lookup, before any snapshot() was taken: a snapshot holding at least
   * every group with a resource whose lower-cased plural, singular, Kind or short name, or one of whose
   * categories, equals `token` (all versions of those groups, in server order), when the cache can say
   * so cheaply (kdyn's fresh combined file and its index); undefined otherwise. Never asks the server.
   */
  lookup?(token: string): Promise<DiscoverySnapshot | undefined>;
  /** Forget what was read from the cache: the next snapshot() asks the server (revalidating with ETags). */
  invalidate(): void;
  /**
   * After a write that changed the server's API (a CRD or an APIService created, changed or deleted):
   * invalidate(), and the cache on disk is marked stale for kdyn and kubectl alike, with the
   * serverresources.json of `groups`, so the next run of either tool asks the server. Use
   * invalidateAfterWrites (discovery/invalidation.ts), which finds the groups from the objects written.
   */
  invalidateStored?(groups: readonly string[]): void;
  /** True when everything in the last snapshot came from the server during this process (client-go's Fresh(); not about the cache's TTL). */
  fresh(): boolean;
  /**
   * After `snapshot({ cachedOnly: true })`: the files it answered from are past the TTL, or were
   * marked stale after a change of CRDs or APIServices (invalidateStored): the list may be stale.
   */
  pastTtl?(): boolean;
  /**
   * Resolves when the cache files written in the background after a snapshot are on disk (never rejects).
   * Callers that exit the process right after using discovery await it first.
   */
  flush?(): Promise<void>;
}
