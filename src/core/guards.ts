/** Type guards and coercions for JSON read from servers and cache files (pure). */

/** A JSON object (not null, not an array). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `x` if it is a string, else ''. */
export function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** The strings of an array (other items dropped); [] for anything else. */
export function strings(x: unknown): string[] {
  return Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
}

/** An array of strings only. */
export function isStrings(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === 'string');
}
