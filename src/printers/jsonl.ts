/**
 * `-o jsonl`: one compact JSON object per line (kdyn's own format, for scripts and `jq -c`).
 * Lists are never wrapped: each item is a line, so output streams page by page at flat memory.
 */
import type { Unstructured } from '../core/unstructured.js';

/** The lines of a page of objects, as one string (one write per page). */
export function formatJsonLines(items: readonly Unstructured[]): string {
  let out = '';
  for (const item of items) out += JSON.stringify(item) + '\n';
  return out;
}
