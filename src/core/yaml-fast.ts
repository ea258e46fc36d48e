/**
 * Strict parsers for the block-style YAML that tools write, so that a run does not run js-yaml
 * (~60 KB of code; run cold, ~1 ms per KB of input) on it. Whatever they accept they must read exactly as
 * js-yaml 5 reads it (test/unit/kubeconfig/yaml-fast.test.ts, test/unit/apply/manifest-yaml.test.ts
 * check that); anything else returns undefined and the caller falls back to js-yaml.
 *
 * - `parseKubeconfigYaml`: one document of what kubectl, kind and the cloud CLIs write into
 *   kubeconfig files: nested mappings, `- ` sequences (of mappings or scalars), `[]`/`{}`, plain,
 *   single- and double-quoted scalars, whole-line comments.
 * - `parseManifestStream`: a stream of manifests (`---` lines between documents, an empty document
 *   being null as js-yaml has it) in that subset plus what manifests hold: decimal integers, plain
 *   strings with spaces inside, and literal block scalars (`key: |` and `key: |-`).
 *
 * Refused (js-yaml decides): anchors, aliases, tags, flow collections, folded or indicated block
 * scalars, directives, `...`, tabs, CR line ends, trailing spaces or comments, odd indentation, plain
 * scalars that YAML could read as something other than a string, an integer, true/false or null.
 */

interface Line {
  indent: number;
  /** The line's content after the indentation. */
  text: string;
  /** The whole line. */
  raw: string;
  /** Blank or a comment: skipped between nodes (kept for block scalars, which own such lines). */
  skip: boolean;
}

/** Thrown inside the parser for "not in the subset"; never escapes. */
class Unsupported extends Error {}

const no = (): never => {
  throw new Unsupported();
};

/** The kubeconfig subset (one document), or undefined. */
export function parseKubeconfigYaml(src: string): unknown {
  return attempt(() => {
    // Only plain printable text: tabs, other control characters and CR-only line ends go to js-yaml.
    if (/[^\n\r\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd]/.test(src) || /\r(?!\n)/.test(src)) no();
    const v = documentOf(src.split(/\r?\n/), false);
    if (v === EMPTY) no(); // js-yaml's empty-stream handling stays js-yaml's
    return v;
  });
}

/** The documents of a manifest stream as js-yaml's `loadAll` returns them, or undefined. */
export function parseManifestStream(src: string): unknown[] | undefined {
  return attempt(() => {
    if (/[^\n\x20-\x7e\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]/.test(src)) no(); // no CR, tab, control character or BOM
    const docs: unknown[] = [];
    let segment: string[] = [];
    let first = true;
    const flush = () => {
      const v = documentOf(segment, true);
      // Before the first `---`, nothing is no document; after a `---`, it is an empty one (null).
      if (v !== EMPTY) docs.push(v);
      else if (!first) docs.push(null);
      first = false;
      segment = [];
    };
    for (const raw of src.split('\n')) {
      if (raw === '---') flush();
      else segment.push(raw);
    }
    flush();
    return docs;
  });
}

function attempt<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

/** A document without a single node. */
const EMPTY = Symbol('empty');

interface P {
  lines: Line[];
  i: number;
  /** The manifest extensions: integers, plain strings with spaces, literal block scalars. */
  ext: boolean;
}

function documentOf(raws: readonly string[], ext: boolean): unknown {
  if (raws[0]?.charCodeAt(0) === 0xfeff) no();
  const lines: Line[] = [];
  for (const raw of raws) {
    // Indentation is spaces only (a line starting with another space character is refused below).
    const indent = /^ */.exec(raw)![0].length;
    const text = raw.slice(indent);
    if (text === '' || text.startsWith('#')) {
      lines.push({ indent, text, raw, skip: true });
      continue;
    }
    if (text.startsWith('---') || text.startsWith('...') || text.startsWith('%')) no();
    if (/^\s|\s$/.test(text)) no(); // trailing spaces, or indentation by other space characters: keep it simple
    lines.push({ indent, text, raw, skip: false });
  }
  const p: P = { lines, i: 0, ext };
  const first = peek(p);
  if (!first) return EMPTY;
  if (first.indent !== 0) no();
  const v = isItem(first.text) ? seq(p, 0) : map(p, 0);
  if (peek(p)) no();
  return v;
}

/** The next line that is not blank or a comment (skipping those), or undefined at the end. */
function peek(p: P): Line | undefined {
  while (p.i < p.lines.length && p.lines[p.i]!.skip) p.i++;
  return p.lines[p.i];
}

function isItem(text: string): boolean {
  return text.startsWith('- ') || text === '-';
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
      const l = peek(p);
      if (!l || l.indent < indent) break;
      if (l.indent > indent) no();
      if (isItem(l.text)) break; // a sequence at the same indent ends the map (caller decides)
      text = l.text;
      p.i++;
    }
    const { key, rest } = splitKey(text);
    if (Object.prototype.hasOwnProperty.call(out, key)) no(); // js-yaml throws on duplicates
    if (key === '__proto__') no();
    if (rest === '') out[key] = nested(p, indent, true);
    else if (p.ext && (rest === '|' || rest === '|-')) out[key] = literal(p, indent, rest === '|-');
    else out[key] = scalar(rest, p.ext);
  }
  return out;
}

/** The value of `key:` with nothing after the colon: a nested block, or null. */
function nested(p: P, indent: number, inMap: boolean): unknown {
  const l = peek(p);
  if (!l) return null;
  const isSeq = isItem(l.text);
  // kubectl writes `clusters:\n- name: x` (sequence at the parent's indent): YAML allows that for
  // sequences inside a mapping.
  if (isSeq && inMap && l.indent === indent) return seq(p, indent);
  if (l.indent <= indent) return null;
  return isSeq ? seq(p, l.indent) : map(p, l.indent);
}

function seq(p: P, indent: number): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    const l = peek(p);
    if (!l || l.indent !== indent || !isItem(l.text)) {
      if (l && l.indent > indent) no();
      break;
    }
    p.i++;
    if (l.text === '-') no();
    const item = l.text.slice(2);
    if (item.startsWith(' ') || isItem(item)) no();
    const itemIndent = indent + 2;
    if (looksLikeKey(item)) out.push(map(p, itemIndent, item));
    else out.push(scalar(item, p.ext));
  }
  return out;
}

/**
 * A literal block scalar (`|`: one final line break, `|-`: none) under a key at `indent`: the lines
 * after it indented as its first one (which sets the indentation), empty lines between them kept.
 * Leading empty lines, lines of spaces only and an empty scalar are left to js-yaml.
 */
function literal(p: P, indent: number, strip: boolean): string {
  const parts: string[] = [];
  let content = -1;
  let empty = 0;
  for (; p.i < p.lines.length; p.i++) {
    const l = p.lines[p.i]!;
    if (l.raw === '') {
      empty++;
      continue;
    }
    if (l.text === '') no();
    if (l.indent < (content < 0 ? indent + 1 : content)) break;
    if (content < 0) {
      if (empty > 0) no();
      content = l.indent;
    }
    for (; empty > 0; empty--) parts.push('');
    parts.push(l.raw.slice(content));
  }
  if (parts.length === 0) no();
  return parts.join('\n') + (strip ? '' : '\n');
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

/** A scalar or `[]`/`{}` value after `key: ` or `- ` (`ext`: the manifest extensions). */
function scalar(text: string, ext: boolean): unknown {
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
  // A decimal integer as written (no sign but `-`, no leading zero, no `_`), within 15 digits.
  if (ext && /^-?(?:0|[1-9][0-9]{0,14})$/.test(text) && text !== '-0') return Number(text);
  // Digit-first: a string only when plainly not a number, date or time (hex tokens often start with a digit).
  if (/^[0-9]/.test(text)) {
    if (/^[0-9][0-9A-Za-z]*$/.test(text) && /[A-Za-z]/.test(text) && !/^[0-9]+[eE][0-9]+$/.test(text) && !/^0[xXoObB]/.test(text)) return text;
    no();
  }
  if (isSpecialPlain(text)) no();
  // Plain strings: a conservative character set that YAML always reads as a string (and, in
  // manifests, spaces between words).
  // (`--flag=value` arguments included: a `-` followed by a letter or `-` cannot start a number or a sequence.)
  if (!(ext ? /^(?:[A-Za-z_\/]|-[-A-Za-z])[A-Za-z0-9_\/.:=+@ -]*$/ : /^(?:[A-Za-z_\/]|-[-A-Za-z])[A-Za-z0-9_\/.:=+@-]*$/).test(text)) no();
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
