/**
 * The lexer of Go's text/template (Go 1.23, the version kubectl v1.32 is built with): turns a
 * template into items (text, delimiters, fields, numbers, ...) exactly where Go does, including the
 * trim markers `{{- ` / ` -}}`, comments and Go's error texts (`bad character U+007D '}'`).
 * Positions are UTF-16 offsets into the template; parse.ts converts them to the byte
 * offsets Go reports.
 *
 * Written as Go's `text/template/parse/lex.go` is: a `Lexer` holds the input and the item being
 * scanned, and each state is a small function that scans a little and returns the next state
 * (`lexText` → `lexLeftDelim` → `lexInsideAction` → `lexIdentifier` → ... → `lexEOF`).
 */

export const enum Item {
  Error, Bool, Char, CharConstant, Complex, Assign, Declare, EOF, Field, Identifier, LeftDelim, LeftParen,
  Number, Pipe, RawString, RightDelim, RightParen, Space, String, Text, Variable,
  // Keywords after this one.
  Keyword, Block, Break, Continue, Dot, Define, Else, End, If, Nil, Range, Template, With,
}

export interface Token {
  typ: Item;
  pos: number;
  val: string;
  line: number;
}

const KEYWORDS: Record<string, Item> = {
  '.': Item.Dot, block: Item.Block, break: Item.Break, continue: Item.Continue, define: Item.Define, else: Item.Else,
  end: Item.End, if: Item.If, range: Item.Range, nil: Item.Nil, template: Item.Template, with: Item.With,
};

const LEFT = '{{';
const RIGHT = '}}';
const LEFT_COMMENT = '/*';
const RIGHT_COMMENT = '*/';
const SPACE_CHARS = ' \t\r\n';

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && (c === '_' || /^[\p{L}\p{Nd}]$/u.test(c));
const hasLeftTrimMarker = (s: string, at: number): boolean => s[at] === '-' && isSpace(s[at + 1]);
const hasRightTrimMarker = (s: string, at: number): boolean => isSpace(s[at]) && s[at + 1] === '-';

/** Go's `%#U` of a rune: `U+007D '}'`. */
export function unicodeForm(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

/** A state of the lexer (Go's `stateFn`): scans some input and returns the next state, null at the end. */
type State = ((l: Lexer) => State) | null;

/** Scans the whole template (Go scans lazily; the result is the same, errors end the stream). */
export function lex(input: string): Token[] {
  const l = new Lexer(input);
  let state: State = lexText;
  while (state) state = state(l);
  return l.items;
}

/** Go's `lexer`: the input, the item being scanned (`start` to `pos`) and the items so far. */
class Lexer {
  readonly items: Token[] = [];
  /** Where the current item starts. */
  start = 0;
  /** Where the scan is. */
  pos = 0;
  /** The width of the last rune read, for `backup`. */
  width = 0;
  /** Nesting of ( ) inside an action. */
  parenDepth = 0;

  constructor(readonly input: string) {}

  /** The text of the current item. */
  get word(): string {
    return this.input.slice(this.start, this.pos);
  }

  lineAt(p: number): number {
    return 1 + count(this.input.slice(0, p), '\n');
  }

  /** Adds the current item and starts the next one where the scan is. */
  emit(typ: Item): void {
    this.items.push({ typ, pos: this.start, val: this.word, line: this.lineAt(this.start) });
    this.start = this.pos;
  }

  /** Skips the input scanned so far. */
  ignore(): void {
    this.start = this.pos;
  }

  /** The next rune (a whole code point), or undefined at the end. */
  next(): string | undefined {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return undefined;
    }
    const c = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = c.length;
    this.pos += this.width;
    return c;
  }

  /** Steps back one rune; once per call of `next`. */
  backup(): void {
    this.pos -= this.width;
  }

  peek(): string | undefined {
    const c = this.next();
    this.backup();
    return c;
  }

  /** Ends the scan with an error item. */
  errorf(msg: string): null {
    this.items.push({ typ: Item.Error, pos: this.start, val: msg, line: this.lineAt(this.start) });
    return null;
  }

  /** Consumes the next rune if it is one of `valid`. */
  accept(valid: string): boolean {
    const c = this.next();
    if (c !== undefined && valid.includes(c)) return true;
    this.backup();
    return false;
  }

  /** Consumes a run of runes from `valid`. */
  acceptRun(valid: string): void {
    for (;;) {
      const c = this.next();
      if (c === undefined || !valid.includes(c)) break;
    }
    this.backup();
  }

  /** Whether a right delimiter (`}}`, or ` -}}` with trim) starts here. */
  atRightDelim(): { delim: boolean; trim: boolean } {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT, this.pos + 2)) return { delim: true, trim: true };
    if (this.input.startsWith(RIGHT, this.pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  }

  /** Whether the next rune may follow a word: space, end, punctuation or a right delimiter. */
  atTerminator(): boolean {
    const c = this.peek();
    if (c === undefined || isSpace(c)) return true;
    if ('.,|:)('.includes(c)) return true;
    return this.input.startsWith(RIGHT, this.pos);
  }
}

/** Text up to the next left delimiter, without the spaces a `{{- ` trims. */
function lexText(l: Lexer): State {
  const x = l.input.indexOf(LEFT, l.pos);
  if (x < 0) {
    l.pos = l.input.length;
    if (l.pos > l.start) l.emit(Item.Text);
    return lexEOF;
  }
  if (x > l.pos) {
    l.pos = x;
    const trim = hasLeftTrimMarker(l.input, l.pos + LEFT.length) ? rightTrimLength(l.word) : 0;
    l.pos -= trim;
    const item: Token = { typ: Item.Text, pos: l.start, val: l.word, line: l.lineAt(l.start) };
    l.pos += trim;
    l.ignore();
    if (item.val.length > 0) l.items.push(item);
  }
  return lexLeftDelim;
}

function lexEOF(l: Lexer): State {
  l.emit(Item.EOF);
  return null;
}

/** `{{` or `{{- `: an action, or a comment. */
function lexLeftDelim(l: Lexer): State {
  l.pos += LEFT.length;
  const after = hasLeftTrimMarker(l.input, l.pos) ? 2 : 0;
  if (l.input.startsWith(LEFT_COMMENT, l.pos + after)) {
    l.pos += after;
    l.ignore();
    return lexComment;
  }
  l.emit(Item.LeftDelim);
  l.pos += after;
  l.ignore();
  l.parenDepth = 0;
  return lexInsideAction;
}

/** `/* ... *\/` and the right delimiter right after it; nothing is emitted. */
function lexComment(l: Lexer): State {
  l.pos += LEFT_COMMENT.length;
  const x = l.input.indexOf(RIGHT_COMMENT, l.pos);
  if (x < 0) return l.errorf('unclosed comment');
  l.pos = x + RIGHT_COMMENT.length;
  const { delim, trim } = l.atRightDelim();
  if (!delim) return l.errorf('comment ends before closing delimiter');
  if (trim) l.pos += 2;
  l.pos += RIGHT.length;
  if (trim) l.pos += leftTrimLength(l.input.slice(l.pos));
  l.ignore();
  return lexText;
}

/** `}}` or ` -}}`, which trims the spaces after it. */
function lexRightDelim(l: Lexer): State {
  const { trim } = l.atRightDelim();
  if (trim) {
    l.pos += 2;
    l.ignore();
  }
  l.pos += RIGHT.length;
  l.emit(Item.RightDelim);
  if (trim) {
    l.pos += leftTrimLength(l.input.slice(l.pos));
    l.ignore();
  }
  return lexText;
}

/** Punctuation that is an item of its own inside an action. */
const PUNCTUATION = new Map<string, Item>([['=', Item.Assign], ['|', Item.Pipe], ['(', Item.LeftParen], [')', Item.RightParen]]);

/** Quoted things, each scanned by its own state once its opening rune is read. */
const OPENERS = new Map<string, State>([['"', lexQuote], ['`', lexRawQuote], ['$', lexVariable], ["'", lexChar]]);

/** Inside `{{ }}`: dispatches on the next rune. */
function lexInsideAction(l: Lexer): State {
  if (l.atRightDelim().delim) return l.parenDepth === 0 ? lexRightDelim : l.errorf('unclosed left paren');
  const r = l.next();
  if (r === undefined) return l.errorf('unclosed action');
  if (isSpace(r)) {
    l.backup();
    return lexSpace;
  }
  if (r === ':') {
    if (l.next() !== '=') return l.errorf('expected :=');
    l.emit(Item.Declare);
    return lexInsideAction;
  }
  const punctuation = PUNCTUATION.get(r);
  if (punctuation !== undefined) return lexPunctuation(l, punctuation);
  const opener = OPENERS.get(r);
  if (opener) return opener;
  if (r === '.' && l.pos < l.input.length && (l.input[l.pos]! < '0' || l.input[l.pos]! > '9')) return lexField;
  if (r === '.' || r === '+' || r === '-' || (r >= '0' && r <= '9')) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  const cp = r.codePointAt(0)!;
  if (cp <= 0x7f && cp >= 0x20 && cp !== 0x7f) {
    l.emit(Item.Char);
    return lexInsideAction;
  }
  return l.errorf(`unrecognized character in action: ${unicodeForm(r)}`);
}

/** `=`, `|`, `(` or `)`, read already; parentheses must balance. */
function lexPunctuation(l: Lexer, typ: Item): State {
  if (typ === Item.LeftParen) l.parenDepth++;
  if (typ === Item.RightParen && --l.parenDepth < 0) return l.errorf('unexpected right paren');
  l.emit(typ);
  return lexInsideAction;
}

/** A run of spaces; a single space that starts ` -}}` belongs to the delimiter. */
function lexSpace(l: Lexer): State {
  let n = 0;
  while (isSpace(l.peek())) {
    l.next();
    n++;
  }
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(RIGHT, l.pos - 1 + 2)) {
    l.backup();
    if (n === 1) return lexRightDelim;
  }
  l.emit(Item.Space);
  return lexInsideAction;
}

/** A keyword, `true`/`false` or a function name. */
function lexIdentifier(l: Lexer): State {
  let r: string | undefined;
  do r = l.next();
  while (isAlphaNumeric(r));
  l.backup();
  const word = l.word;
  if (!l.atTerminator()) return l.errorf(`bad character ${unicodeForm(r ?? '')}`);
  const key = KEYWORDS[word];
  if (key !== undefined && key > Item.Keyword) l.emit(key);
  else if (word[0] === '.') l.emit(Item.Field);
  else if (word === 'true' || word === 'false') l.emit(Item.Bool);
  else l.emit(Item.Identifier);
  return lexInsideAction;
}

/** `.Field`, the `.` read already. */
function lexField(l: Lexer): State {
  return lexFieldOrVariable(l, Item.Field);
}

/** `$` or `$name`, the `$` read already. */
function lexVariable(l: Lexer): State {
  if (l.atTerminator()) {
    l.emit(Item.Variable);
    return lexInsideAction;
  }
  return lexFieldOrVariable(l, Item.Variable);
}

/** The alphanumeric rest of a field or variable; a lone `.` is Dot. */
function lexFieldOrVariable(l: Lexer, typ: Item): State {
  if (l.atTerminator()) {
    l.emit(typ === Item.Variable ? Item.Variable : Item.Dot);
    return lexInsideAction;
  }
  let r: string | undefined;
  do r = l.next();
  while (isAlphaNumeric(r));
  l.backup();
  if (!l.atTerminator()) return l.errorf(`bad character ${unicodeForm(r ?? '')}`);
  l.emit(typ);
  return lexInsideAction;
}

/** `'c'`, the opening quote read already. */
function lexChar(l: Lexer): State {
  return lexQuoted(l, "'", Item.CharConstant, 'unterminated character constant');
}

/** `"..."`, the opening quote read already. */
function lexQuote(l: Lexer): State {
  return lexQuoted(l, '"', Item.String, 'unterminated quoted string');
}

/** Up to the closing `quote` on the same line, skipping backslash escapes. */
function lexQuoted(l: Lexer, quote: string, typ: Item, unterminated: string): State {
  for (;;) {
    let r = l.next();
    if (r === '\\') r = l.next() ?? '\n';
    else if (r === quote) break;
    if (r === undefined || r === '\n') return l.errorf(unterminated);
  }
  l.emit(typ);
  return lexInsideAction;
}

/** `` `...` ``, which may span lines, the opening quote read already. */
function lexRawQuote(l: Lexer): State {
  for (;;) {
    const r = l.next();
    if (r === undefined) return l.errorf('unterminated raw quoted string');
    if (r === '`') break;
  }
  l.emit(Item.RawString);
  return lexInsideAction;
}

/** A number, or a complex number (`1+2i`), which the parser then refuses. */
function lexNumber(l: Lexer): State {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${goQuoteSimple(l.word)}`);
  const sign = l.peek();
  if (sign !== '+' && sign !== '-') {
    l.emit(Item.Number);
    return lexInsideAction;
  }
  if (!scanNumber(l) || l.input[l.pos - 1] !== 'i') return l.errorf(`bad number syntax: ${goQuoteSimple(l.word)}`);
  l.emit(Item.Complex);
  return lexInsideAction;
}

/** Go's `scanNumber`: sign, base prefix, digits, fraction, exponent, `i`; false if a letter follows. */
function scanNumber(l: Lexer): boolean {
  l.accept('+-');
  let digits = '0123456789_';
  if (l.accept('0')) {
    if (l.accept('xX')) digits = '0123456789abcdefABCDEF_';
    else if (l.accept('oO')) digits = '01234567_';
    else if (l.accept('bB')) digits = '01_';
  }
  l.acceptRun(digits);
  if (l.accept('.')) l.acceptRun(digits);
  if (digits.length === 10 + 1 && l.accept('eE')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  if (digits.length === 22 + 1 && l.accept('pP')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  l.accept('i');
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}

function count(s: string, c: string): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
}

function rightTrimLength(s: string): number {
  let i = s.length;
  while (i > 0 && SPACE_CHARS.includes(s[i - 1]!)) i--;
  return s.length - i;
}

function leftTrimLength(s: string): number {
  let i = 0;
  while (i < s.length && SPACE_CHARS.includes(s[i]!)) i++;
  return i;
}

/** `%q` for the short ASCII snippets the lexer quotes. */
function goQuoteSimple(s: string): string {
  return JSON.stringify(s);
}
