// The go-template lexer item by item, each state of it (text, delimiters and trim markers, comments,
// spaces, identifiers and keywords, fields and variables, numbers, quotes, characters, punctuation)
// and each error that ends the stream. The whole engine is compared with kubectl in
// go-template-kubectl.test.ts; these cases need no kubectl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Item, lex } from '../../../src/gotemplate/lex.js';

/** The items of `input` as [type, value] pairs. */
const items = (input: string): [Item, string][] => lex(input).map((t) => [t.typ, t.val]);

const L: [Item, string] = [Item.LeftDelim, '{{'];
const R: [Item, string] = [Item.RightDelim, '}}'];
const SP: [Item, string] = [Item.Space, ' '];
const EOF: [Item, string] = [Item.EOF, ''];

test('text, and text around an action', () => {
  assert.deepEqual(items(''), [EOF]);
  assert.deepEqual(items(' \t\n'), [[Item.Text, ' \t\n'], EOF]);
  assert.deepEqual(items('a {{.}} b'), [[Item.Text, 'a '], L, [Item.Dot, '.'], R, [Item.Text, ' b'], EOF]);
  assert.deepEqual(items('a-{.}}-b'), [[Item.Text, 'a-{.}}-b'], EOF], 'a lone right delimiter is text');
});

test('trim markers take the spaces beside them; {{-3}} is the number -3', () => {
  assert.deepEqual(items('a \n{{- .x -}} \n b'), [[Item.Text, 'a'], L, [Item.Field, '.x'], R, [Item.Text, 'b'], EOF]);
  assert.deepEqual(items('{{-3}}'), [L, [Item.Number, '-3'], R, EOF]);
  assert.deepEqual(items('{{.  -}}'), [L, [Item.Dot, '.'], [Item.Space, ' '], R, EOF], 'the space before -}} belongs to it');
});

test('comments emit nothing', () => {
  assert.deepEqual(items('a-{{/* c\n */}}-b'), [[Item.Text, 'a-'], [Item.Text, '-b'], EOF]);
  assert.deepEqual(items('a {{- /* c */ -}} b'), [[Item.Text, 'a'], [Item.Text, 'b'], EOF]);
  assert.deepEqual(items('a{{/*/}}'), [[Item.Text, 'a'], [Item.Error, 'unclosed comment']]);
  assert.deepEqual(items('a{{/* */ }}'), [[Item.Text, 'a'], [Item.Error, 'comment ends before closing delimiter']]);
});

test('keywords, bools, identifiers, fields and variables', () => {
  assert.deepEqual(items('{{range if else end with nil define template block break continue}}').filter((i) => i[0] !== Item.Space), [
    L, [Item.Range, 'range'], [Item.If, 'if'], [Item.Else, 'else'], [Item.End, 'end'], [Item.With, 'with'], [Item.Nil, 'nil'],
    [Item.Define, 'define'], [Item.Template, 'template'], [Item.Block, 'block'], [Item.Break, 'break'], [Item.Continue, 'continue'], R, EOF,
  ]);
  assert.deepEqual(items('{{true false printf}}'), [L, [Item.Bool, 'true'], SP, [Item.Bool, 'false'], SP, [Item.Identifier, 'printf'], R, EOF]);
  assert.deepEqual(items('{{.x.y . $ $v.f $1}}'), [
    L, [Item.Field, '.x'], [Item.Field, '.y'], SP, [Item.Dot, '.'], SP, [Item.Variable, '$'], SP,
    [Item.Variable, '$v'], [Item.Field, '.f'], SP, [Item.Variable, '$1'], R, EOF,
  ]);
  assert.deepEqual(items('{{(.x).y}}'), [L, [Item.LeftParen, '('], [Item.Field, '.x'], [Item.RightParen, ')'], [Item.Field, '.y'], R, EOF]);
  assert.deepEqual(items('{{.日本 .é}}'), [L, [Item.Field, '.日本'], SP, [Item.Field, '.é'], R, EOF]);
});

test('punctuation: declare, assign, pipe, parentheses and single characters', () => {
  assert.deepEqual(items('{{$v := 3}}{{$v = 4}}'), [
    L, [Item.Variable, '$v'], SP, [Item.Declare, ':='], SP, [Item.Number, '3'], R,
    L, [Item.Variable, '$v'], SP, [Item.Assign, '='], SP, [Item.Number, '4'], R, EOF,
  ]);
  assert.deepEqual(items('{{||(3)}}'), [L, [Item.Pipe, '|'], [Item.Pipe, '|'], [Item.LeftParen, '('], [Item.Number, '3'], [Item.RightParen, ')'], R, EOF]);
  assert.deepEqual(items('{{,@%#}}'), [L, [Item.Char, ','], [Item.Char, '@'], [Item.Char, '%'], [Item.Char, '#'], R, EOF]);
});

test('numbers and complex numbers', () => {
  assert.deepEqual(items('{{1 02 0x1F 0o7 0b10 1_000 -7.2i 1e3 +1.2e-4 0x1p-2 .5 1+2i}}').filter((i) => i[0] !== Item.Space), [
    L, [Item.Number, '1'], [Item.Number, '02'], [Item.Number, '0x1F'], [Item.Number, '0o7'], [Item.Number, '0b10'], [Item.Number, '1_000'],
    [Item.Number, '-7.2i'], [Item.Number, '1e3'], [Item.Number, '+1.2e-4'], [Item.Number, '0x1p-2'], [Item.Number, '.5'], [Item.Complex, '1+2i'], R, EOF,
  ]);
  assert.deepEqual(items('{{3k}}'), [L, [Item.Error, 'bad number syntax: "3k"']]);
  assert.deepEqual(items('{{1+2}}'), [L, [Item.Error, 'bad number syntax: "1+2"']]);
});

test('strings, raw strings and character constants', () => {
  assert.deepEqual(items('{{"a \\"b\\" \\n" `raw\n{{x}}` \'a\' \'\\\'\' \'本\'}}').filter((i) => i[0] !== Item.Space), [
    L, [Item.String, '"a \\"b\\" \\n"'], [Item.RawString, '`raw\n{{x}}`'], [Item.CharConstant, "'a'"], [Item.CharConstant, "'\\''"], [Item.CharConstant, "'本'"], R, EOF,
  ]);
  assert.deepEqual(items('{{"a\n"}}'), [L, [Item.Error, 'unterminated quoted string']]);
  assert.deepEqual(items('{{"a\\'), [L, [Item.Error, 'unterminated quoted string']]);
  assert.deepEqual(items('{{`a}}'), [L, [Item.Error, 'unterminated raw quoted string']]);
  assert.deepEqual(items("{{'\n}}"), [L, [Item.Error, 'unterminated character constant']]);
});

test('errors end the stream: unclosed actions and parentheses, bad characters', () => {
  assert.deepEqual(items('{{range'), [L, [Item.Range, 'range'], [Item.Error, 'unclosed action']]);
  assert.deepEqual(items('{{(3}}'), [L, [Item.LeftParen, '('], [Item.Number, '3'], [Item.Error, 'unclosed left paren']]);
  assert.deepEqual(items('{{3)}}'), [L, [Item.Number, '3'], [Item.Error, 'unexpected right paren']]);
  assert.deepEqual(items('{{:}}'), [L, [Item.Error, 'expected :=']]);
  assert.deepEqual(items('#{{\x01}}'), [[Item.Text, '#'], L, [Item.Error, 'unrecognized character in action: U+0001']]);
  assert.deepEqual(items('{{.x}y}}'), [L, [Item.Error, "bad character U+007D '}'"]]);
  assert.deepEqual(items('{{a😀}}'), [L, [Item.Error, "bad character U+1F600 '😀'"]]);
});

test('positions (UTF-16 offsets) and lines', () => {
  assert.deepEqual(
    lex('0123{{hello}}\nx{{.}}').map((t) => [t.pos, t.line]),
    [[0, 1], [4, 1], [6, 1], [11, 1], [13, 1], [15, 2], [17, 2], [18, 2], [20, 2]],
  );
});
