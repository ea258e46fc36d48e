/**
 * JSON as kubectl prints it (Go's encoding/json, src/core/go-json.ts): `-o json` is
 * json.MarshalIndent with four spaces plus a newline; JSONPath prints maps and arrays with
 * json.Marshal (compact).
 */
import { goJSON } from '../core/go-json.js';

export { formatGoFloat, goJSON, quoteGoJSON, sortGoKeys, type GoJSONOptions } from '../core/go-json.js';

/** `kubectl get ... -o json`: four-space indent, Go escaping, sorted keys, trailing newline. */
export function toJSON(obj: unknown, options: { sortKeys?: boolean } = {}): string {
  return goJSON(obj, { indent: '    ', sortKeys: options.sortKeys ?? true }) + '\n';
}
