// Placeholder until the RESTMapper lands.
import type { CachedDiscovery } from '../discovery/types.js';
import type { RESTMapper } from './types.js';
export class DeferredRESTMapper implements RESTMapper { constructor(_d: CachedDiscovery, _o: { warn(msg: string): void }) {} }
