/**
 * `-o name` (kubectl `CR/pkg/printers/name.go`): one `kind[.group]/name` line per object
 * (src/core/object-name.ts names one object).
 */
import type { Unstructured } from '../core/unstructured.js';
import { objectName, type GroupKind } from '../core/object-name.js';

export { objectName, type GroupKind } from '../core/object-name.js';

/** The `-o name` lines of a page of objects, as one string (one write per page). */
export function formatNames(items: readonly Unstructured[], fallback?: GroupKind): string {
  let out = '';
  for (const item of items) out += objectName(item, fallback) + '\n';
  return out;
}
