/**
 * The two text functions of kubectl explain's plaintext template (kubectl pkg/explain/v2/funcs.go):
 * `wrap`, which is github.com/mitchellh/go-wordwrap v1.0.1's WrapString (through kubectl's
 * term.NewWordWrapWriter), and `indent`. Pure.
 */

/** Go's unicode.IsSpace, less U+00A0 (go-wordwrap keeps a no-break space inside its word). */
function isBreakingSpace(c: string): boolean {
  switch (c) {
    case ' ': case '\t': case '\n': case '\v': case '\f': case '\r': case '\u0085':
    case '\u1680': case '\u2028': case '\u2029': case '\u202f': case '\u205f': case '\u3000':
      return true;
    default:
      return c >= '\u2000' && c <= '\u200a';
  }
}

/**
 * go-wordwrap's WrapString: breaks at white space so lines stay within `limit` characters (runes)
 * where the words allow; a word longer than the limit stays whole. A limit of 0 (or below, a negative
 * Go int turned uint) leaves the text as it is.
 */
export function wrap(limit: number, s: string): string {
  if (limit <= 0) return s;
  let buf = '';
  let current = 0;
  let word = '';
  let wordLen = 0;
  let space = '';
  let spaceLen = 0;
  for (const c of s) {
    if (c === '\n') {
      if (wordLen === 0) {
        if (current + spaceLen > limit) current = 0;
        else buf += space;
      } else {
        buf += space + word;
        word = '';
        wordLen = 0;
      }
      space = '';
      spaceLen = 0;
      buf += c;
      current = 0;
    } else if (isBreakingSpace(c)) {
      if (spaceLen === 0 || wordLen > 0) {
        current += spaceLen + wordLen;
        buf += space + word;
        space = '';
        spaceLen = 0;
        word = '';
        wordLen = 0;
      }
      space += c;
      spaceLen++;
    } else {
      word += c;
      wordLen++;
      if (current + spaceLen + wordLen > limit && wordLen < limit) {
        buf += '\n';
        current = 0;
        space = '';
        spaceLen = 0;
      }
    }
  }
  if (wordLen === 0) {
    if (current + spaceLen <= limit) buf += space;
  } else {
    buf += space + word;
  }
  return buf;
}

/** The template's `indent`: `amount` spaces before the text and after each of its newlines. */
export function indent(amount: number, s: string): string {
  const pad = ' '.repeat(Math.max(0, amount));
  return pad + s.replaceAll('\n', `\n${pad}`);
}
