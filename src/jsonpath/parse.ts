/**
 * Parser for kubectl's JSONPath template syntax (the grammar of k8s.io/client-go/util/jsonpath,
 * parser.go): plain text with `{...}` actions holding `.field`, `['key']`, `..`, `*`, `[n]`,
 * `[start:end:step]`, `[a,b]` unions, `[?(@.x == "y")]` filters, `range`/`end`, quoted strings and
 * number/bool literals. Error messages are client-go's, so kubectl users see the same text.
 * Pure: no I/O. The evaluator lives in ./index.ts.
 */

export interface SliceParam {
  known: boolean;
  value: number;
  /** The end of `[n]` (derived as n+1 rather than written). */
  derived: boolean;
}

export type JPNode =
  | { t: 'list'; nodes: JPNode[] }
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'array'; params: [SliceParam, SliceParam, SliceParam] }
  | { t: 'filter'; left: JPList; right: JPList; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'union'; nodes: JPList[] }
  | { t: 'ident'; name: string };

export type JPList = { t: 'list'; nodes: JPNode[] };

/** A template that does not parse; `message` is client-go's (e.g. `unterminated array`). */
export class JSONPathSyntaxError extends Error {}

const EOF = '';
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/s;

/** Parses a whole template into its root list: text nodes and one list node per `{...}` action. */
export function parseTemplate(text: string): JPList {
  return new Parser(text).parse();
}

/** Parses `text` as the inside of one action (client-go's parseAction). */
function parseAction(text: string): JPList {
  const root = parseTemplate(`{${text}}`);
  return root.nodes[0] as JPList;
}

class Parser {
  private pos = 0;
  private start = 0;
  private width = 0;
  private readonly root: JPList = { t: 'list', nodes: [] };

  constructor(private readonly input: string) {}

  parse(): JPList {
    // The Go parser recurses per token; this loop keeps the same state machine without deep stacks.
    let state: 'text' | 'action' = 'text';
    let cur: JPList = this.root;
    for (;;) {
      if (state === 'text') {
        const open = this.input.indexOf('{', this.pos);
        if (open < 0) {
          this.pos = this.input.length;
          if (this.pos > this.start) this.root.nodes.push({ t: 'text', text: this.consume() });
          return this.root;
        }
        this.pos = open;
        if (this.pos > this.start) this.root.nodes.push({ t: 'text', text: this.consume() });
        this.pos += 1;
        this.consume();
        cur = { t: 'list', nodes: [] };
        this.root.nodes.push(cur);
        state = 'action';
        continue;
      }
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consume();
        state = 'text';
        continue;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || r === '\r' || r === '\n') throw new JSONPathSyntaxError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') {
        this.consume();
      } else if (r === '[') {
        this.parseArray(cur);
      } else if (r === '"' || r === "'") {
        this.parseQuote(cur, r);
      } else if (r === '.') {
        this.parseField(cur);
      } else if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else {
        throw new JSONPathSyntaxError(`unrecognized character in action: ${formatRune(r)}`);
      }
    }
  }

  private consume(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const cp = this.input.codePointAt(this.pos)!;
    const r = String.fromCodePoint(cp);
    this.width = r.length;
    this.pos += this.width;
    return r;
  }

  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private parseIdentifier(cur: JPList): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === 'true' || value === 'false') cur.nodes.push({ t: 'bool', value: value === 'true' });
    else cur.nodes.push({ t: 'ident', name: value });
  }

  private parseRecursive(cur: JPList): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last && last.t === 'recursive') throw new JSONPathSyntaxError('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    cur.nodes.push({ t: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JPList): void {
    const r = this.peek();
    if (r === '+' || r === '-') this.next();
    for (;;) {
      const c = this.next();
      if (c !== '.' && !isDigit(c)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (/^[+-]?\d+$/.test(value)) {
      cur.nodes.push({ t: 'int', value: Number(value) });
    } else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) {
      cur.nodes.push({ t: 'float', value: Number(value) });
    } else {
      throw new JSONPathSyntaxError(`cannot parse number ${value}`);
    }
  }

  private parseArray(cur: JPList): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathSyntaxError('unterminated array');
      if (r === ']') break;
    }
    let text = this.consume();
    text = text.slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      const union: JPList[] = parts.map((s) => parseAction(`[${trimSpaces(s)}]`));
      cur.nodes.push({ t: 'union', nodes: union });
      return;
    }

    const key = DICT_KEY.exec(text);
    if (key) {
      for (const n of parseAction(`.${key[1]}`).nodes) cur.nodes.push(n);
      return;
    }

    const m = SLICE.exec(text);
    if (!m) throw new JSONPathSyntaxError(`invalid array index ${text}`);
    const raw = [m[1] ?? '', m[2] ?? '', m[3] ?? ''];
    const params: [SliceParam, SliceParam, SliceParam] = [
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = raw[i]!;
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') {
          params[i]!.known = false;
        } else {
          if (!/^[+-]?\d+$/.test(v)) throw new JSONPathSyntaxError(`array index ${v} is not a number`);
          params[i] = { known: true, value: Number(v), derived: false };
        }
      } else if (i === 1) {
        params[i] = { known: true, value: params[0].value + 1, derived: true };
      }
    }
    cur.nodes.push({ t: 'array', params });
  }

  private parseFilter(cur: JPList): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathSyntaxError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')') {
        if (begin === end) break;
      }
    }
    if (this.next() !== ']') throw new JSONPathSyntaxError('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const m = FILTER.exec(text);
    if (!m) {
      cur.nodes.push({ t: 'filter', left: parseAction(text), right: { t: 'list', nodes: [] }, op: 'exists' });
    } else {
      cur.nodes.push({ t: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), op: m[2]! });
    }
  }

  private parseQuote(cur: JPList, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathSyntaxError('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consume();
    let s: string;
    try {
      s = unquoteExtend(value);
    } catch {
      throw new JSONPathSyntaxError(`unquote string ${value} error invalid syntax`);
    }
    cur.nodes.push({ t: 'text', text: s });
  }

  private parseField(cur: JPList): void {
    this.consume();
    for (;;) {
      const r = this.next();
      if (r === '\\') {
        this.next();
      } else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    if (value === '*') cur.nodes.push({ t: 'wildcard' });
    else cur.nodes.push({ t: 'field', name: value.replaceAll('\\', '') });
  }
}

function isTerminator(r: string): boolean {
  switch (r) {
    case EOF: case ' ': case '\t': case '\r': case '\n':
    case '.': case ',': case '[': case ']': case '$': case '@': case '{': case '}':
      return true;
  }
  return false;
}

function isDigit(r: string): boolean {
  return /^\p{Nd}$/u.test(r);
}

function isAlphaNumeric(r: string): boolean {
  return r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
}

function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, '');
}

/** Go's `%#U`: `U+0023 '#'`, without the quoted character when it is not printable. */
function formatRune(r: string): string {
  const cp = r.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(r) ? `${hex} '${r}'` : hex;
}

/** Go's strconv.Unquote, extended (as client-go's UnquoteExtend) to single-quoted strings. */
export function unquoteExtend(s: string): string {
  if (s.length < 2) throw new SyntaxError('invalid syntax');
  const quote = s[0]!;
  if (quote !== s[s.length - 1] || (quote !== '"' && quote !== "'")) throw new SyntaxError('invalid syntax');
  const body = s.slice(1, -1);
  if (!body.includes('\\') && !body.includes(quote)) return body;
  const bytes: number[] = [];
  const pushString = (str: string) => { for (const b of Buffer.from(str, 'utf8')) bytes.push(b); };
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c === quote) throw new SyntaxError('invalid syntax');
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      pushString(ch);
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    i += 2;
    switch (e) {
      case 'a': bytes.push(7); break;
      case 'b': bytes.push(8); break;
      case 'f': bytes.push(12); break;
      case 'n': bytes.push(10); break;
      case 'r': bytes.push(13); break;
      case 't': bytes.push(9); break;
      case 'v': bytes.push(11); break;
      case '\\': bytes.push(92); break;
      case "'": case '"':
        if (e !== quote) throw new SyntaxError('invalid syntax');
        bytes.push(e.charCodeAt(0));
        break;
      case 'x': case 'u': case 'U': {
        const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = body.slice(i, i + n);
        if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw new SyntaxError('invalid syntax');
        i += n;
        const v = parseInt(hex, 16);
        if (e === 'x') bytes.push(v);
        else if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) throw new SyntaxError('invalid syntax');
        else pushString(String.fromCodePoint(v));
        break;
      }
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        const oct = body.slice(i - 1, i + 2);
        if (!/^[0-7]{3}$/.test(oct)) throw new SyntaxError('invalid syntax');
        const v = parseInt(oct, 8);
        if (v > 255) throw new SyntaxError('invalid syntax');
        i += 2;
        bytes.push(v);
        break;
      }
      default:
        throw new SyntaxError('invalid syntax');
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
