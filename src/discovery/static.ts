/**
 * Discovery over a fixed snapshot, always fresh (nothing to refetch): for tests and library users
 * who already hold discovery, e.g. `new DeferredRESTMapper(staticDiscovery(snapshot), ...)`.
 */
import type { CachedDiscovery, DiscoverySnapshot } from './types.js';

export function staticDiscovery(snapshot: DiscoverySnapshot): CachedDiscovery {
  return {
    snapshot: () => Promise.resolve(snapshot),
    invalidate: () => {},
    fresh: () => true,
  };
}
