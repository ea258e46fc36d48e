/**
 * The layers a command that talks to a server needs (kubeconfig loader, discovery cache, RESTMapper,
 * dynamic client) behind ONE dynamic import of context.ts, so the bundle holds them in one chunk:
 * each chunk costs a file resolution, read and compile (measured ~0.5 ms each at start-up).
 * The transport stays separate: a warm discovery cache answers without node:https/tls (~7 ms).
 */
export { loadRestConfig } from '../kubeconfig/load.js';
export { createCachedDiscovery, DEFAULT_WRITE_BEHIND_THRESHOLD } from '../discovery/cached.js';
export { DeferredRESTMapper } from '../restmapper/deferred.js';
export { DynamicClient } from '../dynamic/client.js';
