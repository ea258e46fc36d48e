/**
 * The parser of Go's text/template (Go 1.23): items from lex.ts into a tree of nodes,
 * one tree per template name (`define`/`block` add more), with Go's error texts
 * (`template: output:1: unexpected "}" in operand`). Node.toString() gives Go's String() of a node,
 * which execution errors quote (`executing "output" at <.spec.n.x>`).
 */
import { Item, lex, type Token } from './lex.js';

/** A parse failure; `message` is Go's text (`template: NAME:LINE: ...`). */
export class TemplateParseError extends Error {}

interface Base {
  /** UTF-16 offset in the template text. */
  pos: number;
}
export type Node =
  | (Base & { type: 'text'; text: string })
  | (Base & { type: 'action'; line: number; pipe: PipeNode })
  | ControlNode
  | (Base & { type: 'template'; line: number; name: string; pipe?: PipeNode })
  | (Base & { type: 'break' | 'continue' })
  | ListNode
  | PipeNode
  | CommandNode
  | ArgNode;
export interface ControlNode extends Base {
  type: 'if' | 'with' | 'range';
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList?: ListNode;
}
export interface ListNode extends Base {
  type: 'list';
  nodes: Node[];
}
export interface PipeNode extends Base {
  type: 'pipe';
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Base {
  type: 'command';
  args: ArgNode[];
}
export interface VariableNode extends Base {
  type: 'variable';
  ident: string[];
}
export interface NumberNode extends Base {
  type: 'number';
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: number;
  float: number;
}
export type ArgNode =
  | (Base & { type: 'field'; ident: string[] })
  | VariableNode
  | (Base & { type: 'chain'; node: ArgNode; field: string[] })
  | (Base & { type: 'identifier'; ident: string })
  | (Base & { type: 'dot' })
  | (Base & { type: 'nil' })
  | (Base & { type: 'bool'; value: boolean })
  | (Base & { type: 'string'; quoted: string; text: string })
  | NumberNode
  | PipeNode;

type Ctrl = { type: 'end' | 'else'; pos: number; line: number };

/** Go's String() of a node. */
export function nodeString(n: Node | Ctrl): string {
  switch (n.type) {
    case 'text': return n.text;
    case 'action': return `{{${nodeString(n.pipe)}}}`;
    case 'if': case 'with': case 'range':
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList ? `{{else}}${nodeString(n.elseList)}` : ''}{{end}}`;
    case 'template': return `{{template ${JSON.stringify(n.name)}${n.pipe ? ' ' + nodeString(n.pipe) : ''}}}`;
    case 'break': return '{{break}}';
    case 'continue': return '{{continue}}';
    case 'end': return '{{end}}';
    case 'else': return '{{else}}';
    case 'list': return n.nodes.map(nodeString).join('');
    case 'pipe': {
      let s = '';
      if (n.decl.length > 0) s += n.decl.map(nodeString).join(', ') + (n.isAssign ? ' = ' : ' := ');
      return s + n.cmds.map(nodeString).join(' | ');
    }
    case 'command': return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'field': return n.ident.map((i) => '.' + i).join('');
    case 'variable': return n.ident.join('.');
    case 'chain': return (n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.field.map((f) => '.' + f).join('');
    case 'identifier': return n.ident;
    case 'dot': return '.';
    case 'nil': return 'nil';
    case 'bool': return n.value ? 'true' : 'false';
    case 'string': return n.quoted;
    case 'number': return n.text;
  }
}

/** Go's String() of an item, as "unexpected %s" prints it. */
function itemString(t: Token): string {
  if (t.typ === Item.EOF) return 'EOF';
  if (t.typ === Item.Error) return t.val;
  if (t.typ > Item.Keyword) return `<${t.val}>`;
  const runes = [...t.val];
  if (runes.length > 10) return `${goQuote(runes.slice(0, 10).join(''))}...`;
  return goQuote(t.val);
}

/** Parsed templates by name; `output` is kubectl's top-level one. */
export type TreeSet = Map<string, ListNode>;

export interface ParsedTemplate {
  name: string;
  text: string;
  trees: TreeSet;
}

/** Parses `text` as template `name` with the given function names; throws TemplateParseError. */
export function parseGoTemplate(name: string, text: string, funcs: ReadonlySet<string>): ParsedTemplate {
  const trees: TreeSet = new Map();
  new Parser(name, text, lex(text), funcs, trees).parseTop();
  return { name, text, trees };
}

class Parser {
  private tokens: Token[] = [];
  private idx = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  /** The token Go's errorf takes the line from (its token[0]). */
  private last: Token | undefined;

  constructor(
    private name: string,
    private readonly text: string,
    private readonly items: Token[],
    private readonly funcs: ReadonlySet<string>,
    private readonly trees: TreeSet,
  ) {
    this.tokens = items;
  }

  private errorf(msg: string): never {
    const line = this.last?.line ?? 1;
    throw new TemplateParseError(`template: output:${line}: ${msg}`);
  }
  private next(): Token {
    const t = this.tokens[Math.min(this.idx, this.tokens.length - 1)]!;
    this.idx++;
    if (this.idx > (this.high ?? 0)) {
      this.high = this.idx;
      this.last = t;
    }
    return t;
  }
  private high: number | undefined;
  private backup(n = 1): void {
    this.idx -= n;
  }
  private peek(): Token {
    const t = this.next();
    this.backup();
    return t;
  }
  private nextNonSpace(): Token {
    let t: Token;
    do t = this.next();
    while (t.typ === Item.Space);
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  private unexpected(t: Token, context: string): never {
    if (t.typ === Item.Error) this.errorf(t.val);
    this.errorf(`unexpected ${itemString(t)} in ${context}`);
  }
  private expect(typ: Item, context: string): Token {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  private add(name: string, root: ListNode): void {
    const existing = this.trees.get(name);
    if (existing === undefined || isEmptyTree(existing)) {
      this.trees.set(name, root);
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${goQuote(name)}`);
  }

  parseTop(): void {
    const root: ListNode = { type: 'list', pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== Item.EOF) {
      if (this.peek().typ === Item.LeftDelim) {
        const save = this.idx;
        this.next();
        if (this.nextNonSpace().typ === Item.Define) {
          this.parseDefinition();
          continue;
        }
        this.idx = save;
      }
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n as Node);
    }
    this.add(this.name, root);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const nameTok = this.nextNonSpace();
    if (nameTok.typ !== Item.String && nameTok.typ !== Item.RawString) this.unexpected(nameTok, context);
    const name = this.unquote(nameTok.val);
    this.expect(Item.RightDelim, context);
    const savedVars = this.vars;
    this.vars = ['$'];
    const [list, end] = this.itemList();
    if (end.type !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.vars = savedVars;
    this.add(name, list);
  }

  private itemList(): [ListNode, Ctrl] {
    const list: ListNode = { type: 'list', pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== Item.EOF) {
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') return [list, n as Ctrl];
      list.nodes.push(n as Node);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node | Ctrl {
    const t = this.nextNonSpace();
    if (t.typ === Item.Text) return { type: 'text', pos: t.pos, text: t.val };
    if (t.typ === Item.LeftDelim) return this.action();
    this.unexpected(t, 'input');
  }

  private action(): Node | Ctrl {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case Item.Block: return this.blockControl();
      case Item.Break: return this.loopControl('break', t);
      case Item.Continue: return this.loopControl('continue', t);
      case Item.Else: return this.elseControl();
      case Item.End: return { type: 'end', pos: this.expect(Item.RightDelim, 'end').pos, line: t.line };
      case Item.If: return this.control('if');
      case Item.Range: return this.control('range');
      case Item.Template: return this.templateControl();
      case Item.With: return this.control('with');
    }
    this.backup();
    const first = this.peek();
    return { type: 'action', pos: first.pos, line: first.line, pipe: this.pipeline('command', Item.RightDelim) };
  }

  private loopControl(kind: 'break' | 'continue', t: Token): Node {
    const n = this.nextNonSpace();
    if (n.typ !== Item.RightDelim) this.unexpected(n, `{{${kind}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${kind}}} outside {{range}}`);
    return { type: kind, pos: t.pos };
  }

  private pipeline(context: string, end: Item): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { type: 'pipe', pos: first.pos, line: first.line, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== Item.Variable) break;
      this.nextNonSpace();
      const afterVar = this.peek();
      const nxt = this.peekNonSpace();
      if (nxt.typ === Item.Assign || nxt.typ === Item.Declare) {
        pipe.isAssign = nxt.typ === Item.Assign;
        this.nextNonSpace();
        pipe.decl.push({ type: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
      } else if (nxt.typ === Item.Char && nxt.val === ',') {
        this.nextNonSpace();
        pipe.decl.push({ type: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === Item.Variable || p === Item.RightDelim || p === Item.RightParen) continue decls;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (afterVar.typ === Item.Space) {
        // "$x foo": $x is an argument; put it back.
        this.idx = this.indexOfToken(v);
      } else {
        this.idx = this.indexOfToken(v);
      }
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      switch (t.typ) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case Item.Bool: case Item.CharConstant: case Item.Complex: case Item.Dot: case Item.Field: case Item.Identifier:
        case Item.Number: case Item.Nil: case Item.RawString: case Item.String: case Item.Variable: case Item.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private indexOfToken(t: Token): number {
    return this.tokens.indexOf(t);
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      const t = pipe.cmds[i]!.args[0]!.type;
      if (t === 'bool' || t === 'dot' || t === 'nil' || t === 'number' || t === 'string') {
        this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private control(context: 'if' | 'range' | 'with'): Node {
    const mark = this.vars.length;
    const pipe = this.pipeline(context, Item.RightDelim);
    if (context === 'range') this.rangeDepth++;
    const [list, next] = this.itemList();
    if (context === 'range') this.rangeDepth--;
    let elseList: ListNode | undefined;
    if (next.type === 'else') {
      const p = this.peek().typ;
      if ((context === 'if' && p === Item.If) || (context === 'with' && p === Item.With)) {
        this.next();
        elseList = { type: 'list', pos: next.pos, nodes: [this.control(context)] };
      } else {
        const [l, n2] = this.itemList();
        if (n2.type !== 'end') this.errorf(`expected end; found ${nodeString(n2)}`);
        elseList = l;
      }
    }
    this.vars.length = mark;
    return { type: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
  }

  private elseControl(): Ctrl {
    const p = this.peekNonSpace();
    if (p.typ === Item.If || p.typ === Item.With) {
      // "{{else if ...": leave the keyword for control().
      this.idx = this.indexOfToken(p);
      return { type: 'else', pos: p.pos, line: p.line };
    }
    const t = this.expect(Item.RightDelim, 'else');
    return { type: 'else', pos: t.pos, line: t.line };
  }

  private blockControl(): Node {
    const context = 'block clause';
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    const pipe = this.pipeline(context, Item.RightDelim);
    const savedVars = this.vars;
    const savedDepth = this.rangeDepth;
    this.vars = ['$'];
    this.rangeDepth = 0;
    const [list, end] = this.itemList();
    if (end.type !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.vars = savedVars;
    this.rangeDepth = savedDepth;
    this.add(name, list);
    return { type: 'template', pos: t.pos, line: t.line, name, pipe };
  }

  private templateControl(): Node {
    const context = 'template clause';
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().typ !== Item.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, Item.RightDelim);
    }
    return { type: 'template', pos: t.pos, line: t.line, name, pipe };
  }

  private templateName(t: Token, context: string): string {
    if (t.typ === Item.String || t.typ === Item.RawString) return this.unquote(t.val);
    this.unexpected(t, context);
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: 'command', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.typ === Item.Space) continue;
      if (t.typ === Item.RightDelim || t.typ === Item.RightParen) this.backup();
      else if (t.typ !== Item.Pipe) this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): ArgNode | undefined {
    let node = this.term();
    if (!node) return undefined;
    if (this.peek().typ === Item.Field) {
      const pos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === Item.Field) fields.push(this.next().val.slice(1));
      switch (node.type) {
        case 'field':
          node = { type: 'field', pos, ident: [...node.ident, ...fields] };
          break;
        case 'variable':
          node = { type: 'variable', pos, ident: [...node.ident, ...fields] };
          break;
        case 'bool': case 'string': case 'number': case 'nil': case 'dot':
          this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
        // eslint-disable-next-line no-fallthrough
        default:
          node = { type: 'chain', pos, node, field: fields };
      }
    }
    return node;
  }

  private term(): ArgNode | undefined {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case Item.Error:
        this.errorf(t.val);
      // eslint-disable-next-line no-fallthrough
      case Item.Identifier:
        if (!this.funcs.has(t.val)) this.errorf(`function ${goQuote(t.val)} not defined`);
        return { type: 'identifier', pos: t.pos, ident: t.val };
      case Item.Dot: return { type: 'dot', pos: t.pos };
      case Item.Nil: return { type: 'nil', pos: t.pos };
      case Item.Variable: {
        const ident = t.val.split('.');
        if (!this.vars.includes(ident[0]!)) this.errorf(`undefined variable ${goQuote(ident[0]!)}`);
        return { type: 'variable', pos: t.pos, ident };
      }
      case Item.Field: return { type: 'field', pos: t.pos, ident: [t.val.slice(1)] };
      case Item.Bool: return { type: 'bool', pos: t.pos, value: t.val === 'true' };
      case Item.CharConstant: case Item.Complex: case Item.Number: return this.number(t);
      case Item.LeftParen: return this.pipeline('parenthesized pipeline', Item.RightParen);
      case Item.String: case Item.RawString: return { type: 'string', pos: t.pos, quoted: t.val, text: this.unquote(t.val) };
    }
    this.backup();
    return undefined;
  }

  private number(t: Token): NumberNode {
    const n: NumberNode = { type: 'number', pos: t.pos, text: t.val, isInt: false, isUint: false, isFloat: false, int: 0, float: 0 };
    const text = t.val;
    if (t.typ === Item.CharConstant) {
      const r = unquoteChar(text);
      if (r === undefined) this.errorf('invalid syntax');
      if (r === 'malformed') this.errorf(`malformed character constant: ${text}`);
      n.isInt = n.isUint = n.isFloat = true;
      n.int = n.float = r;
      return n;
    }
    if (t.typ === Item.Complex || text.endsWith('i')) this.errorf(`illegal number syntax: ${goQuote(text)}`);
    const i = parseGoInt(text);
    if (i !== undefined) {
      n.isInt = !i.uint;
      n.isUint = i.v >= 0;
      n.isFloat = true;
      n.int = n.float = i.v;
      return n;
    }
    const f = parseGoFloat(text);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${goQuote(text)}`);
      n.isFloat = true;
      n.float = f;
      if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
        n.isInt = true;
        n.isUint = f >= 0;
        n.int = f;
      }
      return n;
    }
    this.errorf(`illegal number syntax: ${goQuote(text)}`);
  }

  private unquote(quoted: string): string {
    const s = unquoteGo(quoted);
    if (s === undefined) this.errorf('invalid syntax');
    return s;
  }
}

function isEmptyTree(n: Node): boolean {
  if (n.type === 'list') return n.nodes.every(isEmptyTree);
  if (n.type === 'text') return n.text.trim() === '';
  return false;
}

/** strconv.ParseInt(text, 0, 64), else ParseUint (`uint: true`), or undefined. */
function parseGoInt(text: string): { v: number; uint: boolean } | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (!m) return undefined;
  let body = m[2]!;
  if (body.includes('_')) {
    // Underscores only between digits (a base prefix counts as a digit).
    const prefixed = /^0[xXoObB]/.exec(body)?.[0] ?? '';
    const rest = body.slice(prefixed.length);
    const ok = prefixed.length > 0 ? /^_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$/.test(rest) : /^[0-9]+(_[0-9]+)*$/.test(rest);
    if (!ok) return undefined;
    body = body.replace(/_/g, '');
  }
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt('0o' + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) v = BigInt('0o' + body.slice(1));
  else v = BigInt(body);
  if (m[1] === '-') v = -v;
  if (v >= -(2n ** 63n) && v <= 2n ** 63n - 1n) return { v: Number(v), uint: false };
  if (v > 0n && v <= 2n ** 64n - 1n) return { v: Number(v), uint: true };
  return undefined;
}

/** strconv.ParseFloat(text, 64) for the forms the lexer produces, or undefined. */
function parseGoFloat(text: string): number | undefined {
  const t = text.replace(/_/g, '');
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/.exec(t);
  if (hex && (hex[2] || hex[3])) {
    const mant = parseInt((hex[2] || '0') + (hex[3] || ''), 16) / 16 ** (hex[3] ?? '').length;
    const v = mant * 2 ** Number(hex[4]);
    return hex[1] === '-' ? -v : v;
  }
  return undefined;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Reads one (possibly escaped) character of a Go literal at `i`: [text, next index] or undefined. */
function readChar(s: string, i: number, quote: string): [string, number] | undefined {
  const c = s[i];
  if (c === undefined) return undefined;
  if (c !== '\\') {
    const cp = s.codePointAt(i)!;
    if (c === quote || (c === '\n' && quote !== '`')) return undefined;
    return [String.fromCodePoint(cp), i + (cp > 0xffff ? 2 : 1)];
  }
  const e = s[i + 1];
  if (e === undefined) return undefined;
  if (e in SIMPLE_ESCAPES) return [SIMPLE_ESCAPES[e]!, i + 2];
  if (e === quote && (quote === '"' || quote === "'")) return [e, i + 2];
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (hexLen) {
    const h = s.slice(i + 2, i + 2 + hexLen);
    if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(h)) return undefined;
    const v = parseInt(h, 16);
    if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v < 0xe000))) return undefined;
    return [e === 'x' ? String.fromCharCode(v) : String.fromCodePoint(v), i + 2 + hexLen];
  }
  if (e >= '0' && e <= '7') {
    const o = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(o) || parseInt(o, 8) > 255) return undefined;
    return [String.fromCharCode(parseInt(o, 8)), i + 4];
  }
  return undefined;
}

/** strconv.Unquote for "..." and `...` literals, or undefined on bad syntax. */
export function unquoteGo(q: string): string | undefined {
  if (q.length < 2) return undefined;
  const quote = q[0]!;
  if (q[q.length - 1] !== quote) return undefined;
  const body = q.slice(1, -1);
  if (quote === '`') return body.includes('`') ? undefined : body.replace(/\r/g, '');
  if (quote !== '"') return undefined;
  let out = '';
  let i = 0;
  while (i < body.length) {
    const r = readChar(body, i, '"');
    if (!r) return undefined;
    out += r[0];
    i = r[1];
  }
  return out;
}

/** A character constant's rune, 'malformed' when more follows, undefined on bad syntax. */
function unquoteChar(text: string): number | 'malformed' | undefined {
  const r = readChar(text, 1, "'");
  if (!r) return undefined;
  if (text.slice(r[1]) !== "'") return 'malformed';
  return r[0].codePointAt(0);
}

/** Go's `%q` of a string (strconv.Quote). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x80 || isGoPrint(ch)) out += ch;
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}
