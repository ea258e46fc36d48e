/**
 * kdyn as a library: query any Kubernetes resource, built-in or custom, without generated types.
 * Only composes and re-exports; see docs/library.md.
 * The declarations name Node's types (Buffer, node:net, NodeJS): the reference below brings them,
 * from the @types/node that package.json depends on, into a project that has not installed them.
 */
/// <reference types="node" preserve="true" />

// Connecting: kubeconfig -> transport -> cached discovery -> RESTMapper -> dynamic client.
export { connect, type ConnectOptions, type Connection } from './connect.js';
// Handles by name, typed kind or object (`k.resource<CronTab>('crontabs')`, `k.kind(kinds[...])`, `k.for(obj)`).
export type { Handles, HandleOptions, KubeObject } from './handles.js';

// Fleets: several kubeconfig contexts at once (`'east,west'`, `'prod-*'`, all): a connection per
// context, one function per connection, results and errors by context (docs/fleet.md).
export { forEachContext, type ForEachContextOptions } from './connect-contexts.js';
export { resolveContexts, listContexts, type KubeconfigContexts } from './fleet/contexts.js';
export { fanOut, ContextTimeoutError, ContextNotStartedError, DEFAULT_CONTEXT_CONCURRENCY, type ContextResult, type FanOutOptions } from './fleet/fanout.js';
export { withLeadingColumns, jsonlRecord, jsonlEvent, contextList, prefixLines } from './printers/envelopes.js';

// The dynamic client.
export { DynamicClient, ResourceClient } from './dynamic/client.js';
export type { DynamicClientOptions, ResourceScope } from './dynamic/client.js';
export type { Unstructured, UnstructuredList, ObjectList, ObjectMeta, ListMeta, TypedKind } from './core/unstructured.js';
export type { Table, TableColumnDefinition, TableRow } from './core/table.js';
export type {
  IncludeObject,
  RequestBaseOptions,
  GetOptions,
  ListOptions,
  TableOptions,
  WriteOptions,
  CreateOptions,
  UpdateOptions,
  PatchOptions,
  PatchType,
  PatchOf,
  PatchBody,
  JsonPatchOperation,
  DeleteOptions,
  WatchRequestOptions,
} from './dynamic/types.js';
export { resourcePath, InvalidPathSegmentError, type ResourcePath } from './dynamic/url.js';

// Types from the server's OpenAPI v3 or from CRD manifests (`kdyn types`), and the check of required fields.
export { createOpenApiV3, type OpenApiV3, type OpenApiV3Options, type OpenApiDocument } from './openapi/v3.js';
export { generateModule, type KindSource, type GenerateOptions } from './typegen/generate.js';
export { generateFiles, kindsFromServer, kindsFromCrdManifests, type ServerKindsDeps } from './typegen/types.js';
export { kindFromDocument, kindsFromCrd, missingRequired } from './typegen/sources.js';
export { explain, ExplainError, renderExplain, type ExplainDeps, type ExplainOptions, type RenderInput } from './explain/index.js';

// Watching: a Reflector-style watcher (list, watch, resume, relist on 410) as an async iterator.
export { Watcher, watch } from './watch/watcher.js';
export { WatchProtocolError, DEFAULT_RETRY_FOR_MS } from './watch/failures.js';
export { JsonStreamDecoder, WatchDecodeError } from './watch/decoder.js';
export { mergeIterables } from './watch/merge.js';
// Several watches as one stream: initial lists as blocks, bookmark sync, stop reasons (timeout, done, a condition).
export {
  MultiWatch,
  type MultiWatchTarget,
  type MultiWatchSource,
  type MultiWatchEvent,
  type MultiWatchOptions,
  type MultiWatchResult,
  type MultiWatchStopReason,
} from './watch/multi.js';
export { INITIAL_EVENTS_END, type EventType, type WatchEvent, type WatchOptions, type RetryInfo, type RelistInfo, type ResumeInfo } from './watch/types.js';

// Resolving names (`crontabs`, `ct`, `deploy.apps`, `Pod`) and kinds to resources.
export { DeferredRESTMapper, type DeferredRESTMapperOptions } from './restmapper/deferred.js';
export type { RESTMapper, ResourceMapping, Resolution } from './restmapper/types.js';
export { NoResourceMatchError, NoKindMatchError, AmbiguousResourceError } from './restmapper/errors.js';

// Discovery (cached on disk, shared with kubectl's ~/.kube/cache layout).
export { createCachedDiscovery, NoCachedDiscoveryError, type CachedDiscoveryOptions, type DiskCachedDiscovery } from './discovery/cached.js';
export { staticDiscovery } from './discovery/static.js';
export type { APIResource, APIGroup, CachedDiscovery, DiscoverySnapshot, DiscoveryFailure } from './discovery/types.js';

// Configuration and transport.
export { loadRestConfig } from './kubeconfig/load.js';
export type { RestConfig, LoadOptions, ConfigFlags } from './kubeconfig/types.js';
export { createTransport, type TransportOptions } from './transport/http.js';
export type { Transport, RequestOptions, RetryCause, Response, StreamResponse, Query } from './transport/types.js';

// Errors and identifiers.
export { KdynError, StatusError, ConnectionError, ConfigError, UsageError, type Status } from './core/errors.js';
export { formatGroupVersion, parseGroupVersion, type GroupVersion, type GroupVersionKind, type GroupVersionResource } from './core/gvk.js';
export { systemClock, FakeClock, type Clock } from './core/clock.js';
export { createLogger, silentLogger, type Logger } from './core/log.js';

// Server-side apply of any objects: Namespaces, then CRDs (awaited until Established), then the rest;
// bounded concurrency, per-object results in input order. Manifest decoding and readiness rules too.
export {
  applyObjects,
  applyManifests,
  DEFAULT_FIELD_MANAGER,
  type ApplyDeps,
  type ApplyOptions,
  type ApplyResult,
  type ApplyReport,
  type ApplyStatus,
  type FieldValidation,
} from './apply/apply.js';
export { planRequests, type PlannedRequest } from './apply/requests.js';
export { decodeManifests, ManifestError, type Manifest } from './apply/manifests.js';
// What applying would change (kdyn diff): a server-side dry-run apply per object, kubectl diff's LIVE
// and MERGED texts (managedFields removed, Secret data masked), and the unified diff by kubectl's diff program.
export { diff, diffManifests, type DiffDeps, type DiffOptions, type DiffReport, type ObjectDiff, type DiffAction } from './diff/diff.js';
export { unifiedDiff, DiffProgramError, type ProgramRun, type UnifiedDiffOptions } from './diff/program.js';
export type { VersionTexts } from './diff/versions.js';
// `.status.conditions`, read as kubectl wait (case-insensitive, `fold`) or kubectl rollout status (`exact`).
export { statusConditions, findCondition, hasCondition, type Condition, type ConditionMatch } from './wait/conditions.js';
export { readiness, type Readiness } from './apply/ready.js';
export { waitReady, type WaitItem, type WaitOptions, type WaitOutcome } from './apply/wait.js';
export { isApplyConflict } from './apply/conflict.js';
// ApplySets (KEP-3659, as `kubectl apply --prune --applyset` with KUBECTL_APPLYSET=true): apply objects as the set of a parent
// object and prune what the set no longer holds; read a set's members; the spec's ID (docs/applysets.md).
export { applySet, readApplySet, type ApplySetDeps, type ApplySetOptions, type ApplySetReport, type ApplySetView, type ParentInfo, type ParentOptions, type PruneResult } from './applyset/run.js';
export { applySetId, ApplySetError, type ParentIdentity, type RecordedSet } from './applyset/spec.js';
export type { Member as ApplySetMember, PruneConflict } from './applyset/prune.js';

// Deleting as kubectl delete does (manifests, names, selectors; the wait until gone), in one or more contexts.
export { deleteInContexts } from './connect-contexts.js';
export { deleteResources, type DeleteRunOptions, type DeleteEvent, type DeleteMember, type DryRun } from './delete/delete.js';
export type { DeleteSelection, DeleteTarget } from './delete/targets.js';
export { waitGone, type GoneItem, type GoneOutcome, type GoneOptions } from './delete/wait.js';
export { deletedLine } from './delete/report.js';

// Controllers: a shared informer (store, indexes, handlers, resync, health) over the watcher, and a work queue.
export { Informer, informer } from './informer/informer.js';
export { InformerFactory, type SharedInformerOptions } from './informer/factory.js';
export { Indexer, byNamespace, byLabel, keyOf, NAMESPACE_INDEX, type IndexFunc, type KubeObject as InformerObject } from './informer/indexer.js';
export {
  DeletedFinalStateUnknown,
  finalState,
  type EventHandlers,
  type HandlerOptions,
  type HandlerRegistration,
  type InformerOptions,
  type InformerHealth,
  type InformerState,
} from './informer/types.js';
export { WorkQueue, type WorkQueueOptions } from './workqueue/queue.js';
export { runWorkers, DrainTimeoutError, DEFAULT_DRAIN_TIMEOUT_MS, type ReconcileContext, type ReconcileResult, type RunWorkersOptions, type WorkersResult } from './workqueue/workers.js';
export {
  exponentialRateLimiter,
  tokenBucketRateLimiter,
  maxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
  type ExponentialOptions,
  type TokenBucketOptions,
} from './workqueue/rate-limiters.js';
