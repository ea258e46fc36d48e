/**
 * The lexer of Go's text/template (Go 1.23, the version kubectl v1.32 is built with): turns a
 * template into items (text, delimiters, fields, numbers, ...) exactly where Go does, including the
 * trim markers `{{- ` / ` -}}`, comments and Go's error texts (`bad character U+007D '}'`).
 * Positions are UTF-16 offsets into the template; parse.ts converts them to the byte
 * offsets Go reports.
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

/** Scans the whole template (Go scans lazily; the result is the same, errors end the stream). */
export function lex(input: string): Token[] {
  const items: Token[] = [];
  let pos = 0;
  let start = 0;
  let parenDepth = 0;
  let width = 0;

  const lineAt = (p: number): number => 1 + count(input.slice(0, p), '\n');
  const emit = (typ: Item): void => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: lineAt(start) });
    start = pos;
  };
  const ignore = (): void => {
    start = pos;
  };
  const next = (): string | undefined => {
    if (pos >= input.length) {
      width = 0;
      return undefined;
    }
    const cp = input.codePointAt(pos)!;
    const c = String.fromCodePoint(cp);
    width = c.length;
    pos += width;
    return c;
  };
  const backup = (): void => {
    pos -= width;
  };
  const peek = (): string | undefined => {
    const c = next();
    backup();
    return c;
  };
  const errorf = (msg: string): null => {
    items.push({ typ: Item.Error, pos: start, val: msg, line: lineAt(start) });
    return null;
  };
  const accept = (valid: string): boolean => {
    const c = next();
    if (c !== undefined && valid.includes(c)) return true;
    backup();
    return false;
  };
  const acceptRun = (valid: string): void => {
    for (;;) {
      const c = next();
      if (c === undefined || !valid.includes(c)) break;
    }
    backup();
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (hasRightTrimMarker(input, pos) && input.startsWith(RIGHT, pos + 2)) return { delim: true, trim: true };
    if (input.startsWith(RIGHT, pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  };
  const atTerminator = (): boolean => {
    const c = peek();
    if (c === undefined || isSpace(c)) return true;
    if ('.,|:)('.includes(c)) return true;
    return input.startsWith(RIGHT, pos);
  };

  type State = (() => State) | null;

  const lexText = (): State => {
    const x = input.indexOf(LEFT, pos);
    if (x >= 0) {
      if (x > pos) {
        pos = x;
        let trim = 0;
        if (hasLeftTrimMarker(input, pos + LEFT.length)) trim = rightTrimLength(input.slice(start, pos));
        pos -= trim;
        const text = input.slice(start, pos);
        const item: Token = { typ: Item.Text, pos: start, val: text, line: lineAt(start) };
        pos += trim;
        ignore();
        if (text.length > 0) items.push(item);
      }
      return lexLeftDelim;
    }
    pos = input.length;
    if (pos > start) emit(Item.Text);
    return lexEOF;
  };
  const lexEOF = (): State => {
    emit(Item.EOF);
    return null;
  };
  const lexLeftDelim = (): State => {
    pos += LEFT.length;
    const trim = hasLeftTrimMarker(input, pos);
    const after = trim ? 2 : 0;
    if (input.startsWith(LEFT_COMMENT, pos + after)) {
      pos += after;
      ignore();
      return lexComment;
    }
    emit(Item.LeftDelim);
    pos += after;
    ignore();
    parenDepth = 0;
    return lexInsideAction;
  };
  const lexComment = (): State => {
    pos += LEFT_COMMENT.length;
    const x = input.indexOf(RIGHT_COMMENT, pos);
    if (x < 0) return errorf('unclosed comment');
    pos = x + RIGHT_COMMENT.length;
    const { delim, trim } = atRightDelim();
    if (!delim) return errorf('comment ends before closing delimiter');
    if (trim) pos += 2;
    pos += RIGHT.length;
    if (trim) pos += leftTrimLength(input.slice(pos));
    ignore();
    return lexText;
  };
  const lexRightDelim = (): State => {
    const { trim } = atRightDelim();
    if (trim) {
      pos += 2;
      ignore();
    }
    pos += RIGHT.length;
    emit(Item.RightDelim);
    if (trim) {
      pos += leftTrimLength(input.slice(pos));
      ignore();
    }
    return lexText;
  };
  const lexInsideAction = (): State => {
    const { delim } = atRightDelim();
    if (delim) {
      if (parenDepth === 0) return lexRightDelim;
      return errorf('unclosed left paren');
    }
    const r = next();
    if (r === undefined) return errorf('unclosed action');
    if (isSpace(r)) {
      backup();
      return lexSpace;
    }
    switch (r) {
      case '=':
        emit(Item.Assign);
        return lexInsideAction;
      case ':':
        if (next() !== '=') return errorf('expected :=');
        emit(Item.Declare);
        return lexInsideAction;
      case '|':
        emit(Item.Pipe);
        return lexInsideAction;
      case '"':
        return lexQuote;
      case '`':
        return lexRawQuote;
      case '$':
        return lexVariable;
      case "'":
        return lexChar;
      case '(':
        parenDepth++;
        emit(Item.LeftParen);
        return lexInsideAction;
      case ')':
        parenDepth--;
        if (parenDepth < 0) return errorf('unexpected right paren');
        emit(Item.RightParen);
        return lexInsideAction;
    }
    if (r === '.' && pos < input.length && (input[pos]! < '0' || input[pos]! > '9')) return () => lexFieldOrVariable(Item.Field);
    if (r === '.' || r === '+' || r === '-' || (r >= '0' && r <= '9')) {
      backup();
      return lexNumber;
    }
    if (isAlphaNumeric(r)) {
      backup();
      return lexIdentifier;
    }
    const cp = r.codePointAt(0)!;
    if (cp <= 0x7f && cp >= 0x20 && cp !== 0x7f) {
      emit(Item.Char);
      return lexInsideAction;
    }
    return errorf(`unrecognized character in action: ${unicodeForm(r)}`);
  };
  const lexSpace = (): State => {
    let n = 0;
    while (isSpace(peek())) {
      next();
      n++;
    }
    // A trim-marked closing delimiter (" -}}") starts with a space.
    if (hasRightTrimMarker(input, pos - 1) && input.startsWith(RIGHT, pos - 1 + 2)) {
      backup();
      if (n === 1) return lexRightDelim;
    }
    emit(Item.Space);
    return lexInsideAction;
  };
  const lexIdentifier = (): State => {
    for (;;) {
      const r = next();
      if (isAlphaNumeric(r)) continue;
      backup();
      const word = input.slice(start, pos);
      if (!atTerminator()) return errorf(`bad character ${unicodeForm(r ?? '')}`);
      const key = KEYWORDS[word];
      if (key !== undefined && key > Item.Keyword) emit(key);
      else if (word[0] === '.') emit(Item.Field);
      else if (word === 'true' || word === 'false') emit(Item.Bool);
      else emit(Item.Identifier);
      return lexInsideAction;
    }
  };
  const lexVariable = (): State => {
    if (atTerminator()) {
      emit(Item.Variable);
      return lexInsideAction;
    }
    return lexFieldOrVariable(Item.Variable);
  };
  const lexFieldOrVariable = (typ: Item): State => {
    if (atTerminator()) {
      emit(typ === Item.Variable ? Item.Variable : Item.Dot);
      return lexInsideAction;
    }
    let r: string | undefined;
    for (;;) {
      r = next();
      if (!isAlphaNumeric(r)) {
        backup();
        break;
      }
    }
    if (!atTerminator()) return errorf(`bad character ${unicodeForm(r ?? '')}`);
    emit(typ);
    return lexInsideAction;
  };
  const lexChar = (): State => {
    for (;;) {
      let r = next();
      if (r === '\\') {
        r = next();
        if (r !== undefined && r !== '\n') continue;
        return errorf('unterminated character constant');
      }
      if (r === undefined || r === '\n') return errorf('unterminated character constant');
      if (r === "'") break;
    }
    emit(Item.CharConstant);
    return lexInsideAction;
  };
  const scanNumber = (): boolean => {
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 10 + 1 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 22 + 1 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };
  const lexNumber = (): State => {
    if (!scanNumber()) return errorf(`bad number syntax: ${goQuoteSimple(input.slice(start, pos))}`);
    const sign = peek();
    if (sign === '+' || sign === '-') {
      if (!scanNumber() || input[pos - 1] !== 'i') return errorf(`bad number syntax: ${goQuoteSimple(input.slice(start, pos))}`);
      emit(Item.Complex);
    } else {
      emit(Item.Number);
    }
    return lexInsideAction;
  };
  const lexQuote = (): State => {
    for (;;) {
      let r = next();
      if (r === '\\') {
        r = next();
        if (r !== undefined && r !== '\n') continue;
        return errorf('unterminated quoted string');
      }
      if (r === undefined || r === '\n') return errorf('unterminated quoted string');
      if (r === '"') break;
    }
    emit(Item.String);
    return lexInsideAction;
  };
  const lexRawQuote = (): State => {
    for (;;) {
      const r = next();
      if (r === undefined) return errorf('unterminated raw quoted string');
      if (r === '`') break;
    }
    emit(Item.RawString);
    return lexInsideAction;
  };

  let state: State = lexText;
  while (state) state = state();
  return items;
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
