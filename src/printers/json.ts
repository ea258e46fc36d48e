/**
 * JSON as kubectl prints it (Go's encoding/json): `-o json` is json.MarshalIndent with four spaces
 * plus a newline; JSONPath prints maps and arrays with json.Marshal (compact). Byte-level details
 * that differ from JSON.stringify: `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` etc.,
 * `\b`/`\f` short escapes, other control characters as lowercase `\u00xx`, lone surrogates as
 * `\ufffd`, and map keys sorted (kubectl's objects are unstructured Go maps).
 */

export interface GoJSONOptions {
  /** Indent per level; '' for compact output. */
  indent?: string;
  /** Sort object keys as Go does for maps (default true). false keeps insertion (server) order. */
  sortKeys?: boolean;
}

/** `kubectl get ... -o json`: four-space indent, Go escaping, sorted keys, trailing newline. */
export function toJSON(obj: unknown, options: { sortKeys?: boolean } = {}): string {
  return goJSON(obj, { indent: '    ', sortKeys: options.sortKeys ?? true }) + '\n';
}

/** Go's json.Marshal (compact) or json.MarshalIndent (with `indent`) of a JSON value. */
export function goJSON(value: unknown, options: GoJSONOptions = {}): string {
  const indent = options.indent ?? '';
  const sortKeys = options.sortKeys ?? true;
  const parts: string[] = [];
  const enc = (v: unknown, depth: number): void => {
    if (v === null || v === undefined) {
      parts.push('null');
    } else if (typeof v === 'string') {
      parts.push(quoteGoJSON(v));
    } else if (typeof v === 'number') {
      parts.push(Number.isFinite(v) ? (Object.is(v, -0) ? '0' : String(v)) : 'null');
    } else if (typeof v === 'boolean') {
      parts.push(v ? 'true' : 'false');
    } else if (typeof v === 'bigint') {
      parts.push(v.toString());
    } else if (Array.isArray(v)) {
      if (v.length === 0) {
        parts.push('[]');
        return;
      }
      parts.push('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) parts.push(',');
        if (indent) parts.push('\n', indent.repeat(depth + 1));
        enc(v[i], depth + 1);
      }
      if (indent) parts.push('\n', indent.repeat(depth));
      parts.push(']');
    } else if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      let keys = Object.keys(o).filter((k) => o[k] !== undefined);
      if (sortKeys) keys = sortGoKeys(keys);
      if (keys.length === 0) {
        parts.push('{}');
        return;
      }
      parts.push('{');
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) parts.push(',');
        if (indent) parts.push('\n', indent.repeat(depth + 1));
        parts.push(quoteGoJSON(keys[i]!), indent ? ': ' : ':');
        enc(o[keys[i]!], depth + 1);
      }
      if (indent) parts.push('\n', indent.repeat(depth));
      parts.push('}');
    } else {
      parts.push('null');
    }
  };
  enc(value, 0);
  return parts.join('');
}

/** Go sorts map keys by their UTF-8 bytes; for ASCII keys that is JavaScript's default order. */
export function sortGoKeys(keys: string[]): string[] {
  return keys.every((k) => /^[\x00-\x7f]*$/.test(k))
    ? keys.sort()
    : keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

const HEX = '0123456789abcdef';

// Characters that need work: controls, quote, backslash, HTML-unsafe, line/paragraph separators, surrogates.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\x00-\x1f"\\<>&\u2028\u2029\ud800-\udfff]/;

/** A string literal exactly as Go's encoding/json writes it (with HTML escaping on, the default). */
export function quoteGoJSON(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22: out += '\\"'; continue;
      case 0x5c: out += '\\\\'; continue;
      case 0x0a: out += '\\n'; continue;
      case 0x0d: out += '\\r'; continue;
      case 0x09: out += '\\t'; continue;
      case 0x08: out += '\\b'; continue;
      case 0x0c: out += '\\f'; continue;
    }
    if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) {
      out += '\\u00' + HEX[c >> 4] + HEX[c & 0xf];
    } else if (c === 0x2028 || c === 0x2029) {
      out += c === 0x2028 ? '\\u2028' : '\\u2029';
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += '\\ufffd';
    } else {
      out += s[i]!;
    }
  }
  return out + '"';
}
