/**
 * A strict parser for the block-style YAML subset that kubectl, kind and the cloud CLIs write into
 * kubeconfig files, so that a run does not load and run js-yaml (~60 KB of code, 4-6 ms) for them:
 * nested mappings, `- ` sequences (of mappings or scalars), `[]`/`{}`, plain, single- and
 * double-quoted scalars, whole-line comments. Anything else (anchors, aliases, tags, flow
 * collections, block scalars, multi-document streams, tabs, trailing comments, odd indentation,
 * plain scalars that YAML would read as something other than a string, true/false or null...)
 * returns undefined and the caller falls back to js-yaml. For what it accepts it must produce
 * exactly what js-yaml's `load` produces (test/unit/kubeconfig/yaml-fast.test.ts checks that).
 */

interface Line {
  indent: number;
  /** The line's content after the indentation. */
  text: string;
}

/** Thrown inside the parser for "not in the subset"; never escapes. */
class Unsupported extends Error {}

const no = (): never => {
  throw new Unsupported();
};

export function parseKubeconfigYaml(src: string): unknown {
  try {
    return parse(src);
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function parse(src: string): unknown {
  if (src.charCodeAt(0) === 0xfeff) no();
  // Only plain printable text: tabs, other control characters and CR-only line ends go to js-yaml.
  if (/[^\n\r\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd]/.test(src) || /\r(?!\n)/.test(src)) no();
  const lines: Line[] = [];
  for (const raw of src.split(/\r?\n/)) {
    const text = raw.trimStart();
    if (text === '' || text.startsWith('#')) {
      if (raw.trim() !== '' && !text.startsWith('#')) no();
      continue;
    }
    if (text.startsWith('---') || text.startsWith('...') || text.startsWith('%')) no();
    if (/\s$/.test(text)) no(); // trailing spaces: keep it simple
    lines.push({ indent: raw.length - text.length, text });
  }
  if (lines.length === 0) no(); // js-yaml's empty-stream handling stays js-yaml's
  const p = { lines, i: 0 };
  const first = lines[0]!;
  if (first.indent !== 0) no();
  const v = first.text.startsWith('- ') || first.text === '-' ? seq(p, 0) : map(p, 0);
  if (p.i !== lines.length) no();
  return v;
}

interface P {
  lines: Line[];
  i: number;
}

/** A mapping whose keys are at exactly `indent`. */
function map(p: P, indent: number, firstInline?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let inline = firstInline;
  for (;;) {
    let text: string;
    if (inline !== undefined) {
      text = inline;
      inline = undefined;
    } else {
      const l = p.lines[p.i];
      if (!l || l.indent < indent) break;
      if (l.indent > indent) no();
      if (l.text.startsWith('- ') || l.text === '-') break; // a sequence at the same indent ends the map (caller decides)
      text = l.text;
      p.i++;
    }
    const { key, rest } = splitKey(text);
    if (Object.prototype.hasOwnProperty.call(out, key)) no(); // js-yaml throws on duplicates
    if (key === '__proto__') no();
    if (rest === '') {
      out[key] = nested(p, indent, true);
    } else {
      out[key] = scalar(rest);
    }
  }
  return out;
}

/** The value of `key:` with nothing after the colon: a nested block, or null. */
function nested(p: P, indent: number, inMap: boolean): unknown {
  const l = p.lines[p.i];
  if (!l) return null;
  const isSeq = l.text.startsWith('- ') || l.text === '-';
  // kubectl writes `clusters:\n- name: x` (sequence at the parent's indent): YAML allows that for
  // sequences inside a mapping.
  if (isSeq && inMap && l.indent === indent) return seq(p, indent);
  if (l.indent <= indent) return null;
  return isSeq ? seq(p, l.indent) : map(p, l.indent);
}

function seq(p: P, indent: number): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    const l = p.lines[p.i];
    if (!l || l.indent !== indent || !(l.text.startsWith('- ') || l.text === '-')) {
      if (l && l.indent > indent) no();
      break;
    }
    p.i++;
    if (l.text === '-') no();
    const item = l.text.slice(2);
    if (item.startsWith(' ') || item.startsWith('- ') || item === '-') no();
    const itemIndent = indent + 2;
    if (looksLikeKey(item)) out.push(map(p, itemIndent, item));
    else out.push(scalar(item));
  }
  return out;
}

function looksLikeKey(text: string): boolean {
  if (text.startsWith('"') || text.startsWith("'")) {
    // a quoted key followed by `:`
    try {
      splitKey(text);
      return true;
    } catch {
      return false;
    }
  }
  return /^[^:#]*?:( |$)/.test(text);
}

/** `key: rest` -> key (plain or quoted) and the text after `: ` ('' when nothing follows). */
function splitKey(text: string): { key: string; rest: string } {
  let key: string;
  let after: string;
  if (text[0] === '"' || text[0] === "'") {
    const end = quotedEnd(text);
    key = scalarString(text.slice(0, end));
    after = text.slice(end);
  } else {
    const m = /^([^:]*?):(?: |$)/.exec(text);
    if (!m) no();
    key = m![1]!;
    if (!isPlainKey(key)) no();
    after = text.slice(key.length);
  }
  if (after === ':') return { key, rest: '' };
  if (!after.startsWith(': ')) no();
  const rest = after.slice(2);
  if (rest.startsWith(' ')) no();
  return { key, rest };
}

/** Plain keys: names like `certificate-authority-data`, `current-context`, `client.authentication.k8s.io/v1`. */
function isPlainKey(k: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_.\/-]*$/.test(k) && !isSpecialPlain(k);
}

/** Index just past the closing quote of the quoted scalar at the start of `text`. */
function quotedEnd(text: string): number {
  const q = text[0]!;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (q === "'" && c === "'") {
      if (text[i + 1] === "'") {
        i++;
        continue;
      }
      return i + 1;
    }
    if (q === '"') {
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '"') return i + 1;
    }
  }
  return no();
}

function scalarString(quoted: string): string {
  const q = quoted[0];
  const body = quoted.slice(1, -1);
  if (q === "'") return body.replace(/''/g, "'");
  // Double quotes: only the escapes a kubeconfig writer uses.
  return body.replace(/\\(.)/g, (_, c: string) => {
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      default:
        return no();
    }
  });
}

/** A scalar or `[]`/`{}` value after `key: ` or `- `. */
function scalar(text: string): unknown {
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (text[0] === '"' || text[0] === "'") {
    const end = quotedEnd(text);
    if (end !== text.length) no();
    return scalarString(text);
  }
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null' || text === '~') return null;
  // Digit-first: a string only when plainly not a number, date or time (hex tokens often start with a digit).
  if (/^[0-9]/.test(text)) {
    if (/^[0-9][0-9A-Za-z]*$/.test(text) && /[A-Za-z]/.test(text) && !/^[0-9]+[eE][0-9]+$/.test(text) && !/^0[xXoObB]/.test(text)) return text;
    no();
  }
  if (isSpecialPlain(text)) no();
  // Plain strings: a conservative character set that YAML always reads as a string.
  // (`--flag=value` arguments included: a `-` followed by a letter or `-` cannot start a number or a sequence.)
  if (!/^(?:[A-Za-z_\/]|-[-A-Za-z])[A-Za-z0-9_\/.:=+@-]*$/.test(text)) no();
  if (/: |:$/.test(text)) no();
  return text;
}

/** Plain scalars YAML 1.2 core (js-yaml's default schema) resolves to non-strings, or that start like other syntax. */
function isSpecialPlain(s: string): boolean {
  if (/^[-+]?(\.[0-9]|[0-9])/.test(s)) return true; // any number-like start (ints, floats, dates, IPs): js-yaml decides
  if (/^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(s)) return true;
  if (/^(true|True|TRUE|false|False|FALSE|null|Null|NULL|~|yes|no|on|off|y|n|Yes|No|On|Off|YES|NO|ON|OFF|Y|N)$/.test(s)) return true;
  if (s === '<<') return true;
  return false;
}
