/**
 * A mapping that went stale while in use (kubectl's get after a CRD was deleted or moved to another
 * group): a 404 on the mapped collection itself asks discovery again (RESTMapper.refresh) and, when
 * the name now maps elsewhere, runs the work once more with the new mapping; when it maps to nothing,
 * the mapper's unknown-name error. Also kubectl's wording of a list that failed with 400 or 404.
 * Used by `get` for one context and by the fleet's get for each context (with that context's mapper).
 */
import { StatusError } from '../core/errors.js';
import { gvrString, sameGVR, type GroupVersionResource } from '../core/gvk.js';
import type { RESTMapper, ResourceMapping } from './types.js';

/** A 404 that is not about one object: the collection itself is gone (e.g. its CRD was deleted). */
export function isCollectionGone(e: unknown): boolean {
  return e instanceof StatusError && e.code === 404 && !e.status.details?.name;
}

/**
 * Runs `fn` with `mapping`; if the collection is gone, refreshes `mapper`, maps `arg` again and, when
 * that gives another resource, runs `fn` once more with it. Errors are `fn`'s (the first one when the
 * mapping did not change), or the mapper's for a name that now maps to nothing.
 */
export async function withFreshMapping<T>(mapper: RESTMapper, arg: string, mapping: ResourceMapping, fn: (mapping: ResourceMapping) => Promise<T>): Promise<T> {
  try {
    return await fn(mapping);
  } catch (e) {
    if (!isCollectionGone(e)) throw e;
    // A name that now maps to nothing throws NoResourceMatchError, kubectl's unknown-name error.
    await mapper.refresh();
    const fresh = await mapper.resourceFor(arg);
    if (sameGVR(fresh.gvr, mapping.gvr)) throw e;
    return fn(fresh);
  }
}

export interface ListErrorContext {
  gvr: GroupVersionResource;
  /** The request named objects (their errors keep the server's wording). */
  named: boolean;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * kubectl's wording for a list that failed with 400 or 404 (`CR/pkg/resource/selector.go`):
 * `Unable to list "g/v, Resource=r": ...`, or `Unable to find ... that match label selector ...`.
 */
export function listError(e: unknown, c: ListErrorContext): unknown {
  if (!(e instanceof StatusError) || c.named || (e.code !== 400 && e.code !== 404)) return e;
  const what = JSON.stringify(gvrString(c.gvr));
  const msg = e.status.message ?? '';
  const text = c.labelSelector || c.fieldSelector
    ? `Unable to find ${what} that match label selector ${JSON.stringify(c.labelSelector ?? '')}, field selector ${JSON.stringify(c.fieldSelector ?? '')}: ${msg}`
    : `Unable to list ${what}: ${msg}`;
  return new StatusError({ ...e.status, message: text }, e.httpStatus);
}
