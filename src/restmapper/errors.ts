/**
 * RESTMapper errors, mirroring apimachinery's pkg/api/meta/errors.go: a miss (no resource / no kind)
 * is a different type from an ambiguity. All exit 1, as kubectl.
 */
import { KdynError } from '../core/errors.js';
import type { GroupVersionResource } from '../core/gvk.js';
import { formatGroupVersion } from '../core/gvk.js';

/** A name that maps to nothing: kubectl's `the server doesn't have a resource type "x"`. */
export class NoResourceMatchError extends KdynError {
  constructor(
    /** The argument as typed (`podz`, `pods.nosuch.example.com`). */
    readonly input: string,
    /** The resource part kubectl names in its message (text before the first dot). */
    readonly resource: string,
    /** Close known names, best first (may be empty). */
    readonly suggestions: readonly string[] = [],
    /** Group-versions discovery could not read, which may explain the miss. */
    readonly incomplete: readonly string[] = [],
  ) {
    super(noResourceMessage(resource, suggestions, incomplete));
  }
}

function noResourceMessage(resource: string, suggestions: readonly string[], incomplete: readonly string[]): string {
  let msg = `the server doesn't have a resource type "${resource}"`;
  if (suggestions.length) msg += `. Did you mean ${orList(suggestions.map((s) => `"${s}"`))}?`;
  if (incomplete.length) msg += ` (discovery incomplete: ${incomplete.join(', ')})`;
  return msg;
}

function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** A GroupVersionKind (from a manifest) that the server does not serve: `no matches for kind "K" in version "g/v"`. */
export class NoKindMatchError extends KdynError {
  constructor(
    readonly group: string,
    readonly version: string,
    readonly kind: string,
  ) {
    super(
      version
        ? `no matches for kind "${kind}" in version "${formatGroupVersion({ group, version })}"`
        : `no matches for kind "${kind}" in group "${group}"`,
    );
  }
}

/** Several resources tie at the same priority (apimachinery's AmbiguousResourceError). */
export class AmbiguousResourceError extends KdynError {
  constructor(
    readonly input: string,
    readonly matches: readonly GroupVersionResource[],
  ) {
    super(`${input} matches multiple resources [${matches.map((m) => `${m.group}/${m.version}, Resource=${m.resource}`).join(' ')}]`);
  }
}
