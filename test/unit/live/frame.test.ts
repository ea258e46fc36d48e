/**
 * The live view's renderer on its own: a frame laid on a screen (cut to its width and height,
 * styled or not), and the update from one frame to the next, checked both as bytes (only changed
 * lines are written; no clear unless the size changed) and as what a terminal then shows
 * (test/support/vt.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diff, fit, layout } from '../../../src/live/frame.js';
import { VirtualTerminal } from '../../support/vt.js';

test('layout: lines cut to the width, at most `rows` of them, styles only when asked', () => {
  const f = layout([{ text: 'abcdefgh', style: 'bold' }, { text: 'xy' }, { text: 'dropped' }], 5, 2, true);
  assert.deepEqual(f.lines, ['\x1b[1mabcde\x1b[0m', 'xy']);
  assert.deepEqual(f.full, [true, false]);
  assert.deepEqual(layout([{ text: 'ab', style: 'reverse' }], 5, 2, false).lines, ['ab']);
  assert.equal(fit('a\tb\x1bc', 10), 'a b c', 'controls never reach the terminal');
  assert.equal(fit('héllo wörld', 4), 'héll');
});

test('diff: the first frame clears and draws; the next rewrites only the lines that changed', () => {
  const a = layout([{ text: 'one' }, { text: 'two' }, { text: 'three' }], 20, 5, true);
  const first = diff(undefined, a);
  assert.ok(first.startsWith('\x1b[H\x1b[2J'));
  const b = layout([{ text: 'one' }, { text: 'TWO!' }, { text: 'three' }], 20, 5, true);
  assert.equal(diff(a, b), '\x1b[2HTWO!\x1b[K', 'one line: cursor to row 2, its text, the rest of the line erased');
  assert.equal(diff(b, b), '', 'nothing changed: nothing written');
  const c = layout([{ text: 'one' }], 20, 5, true);
  assert.equal(diff(b, c), '\x1b[2H\x1b[K\x1b[3H\x1b[K', 'lines no longer used are erased');
  const resized = layout([{ text: 'one' }], 30, 5, true);
  assert.ok(diff(c, resized).startsWith('\x1b[H\x1b[2J'), 'a new size: the whole screen again');
});

test('diff applied to a terminal: the screen always equals the last frame, full-width lines included', () => {
  const vt = new VirtualTerminal(10, 4);
  const frames = [
    ['header', 'row-a   1', 'row-b   2'],
    ['header', 'row-a   10', 'row-b   2', 'row-c   3'],
    ['header!!!!', 'row-b   2'],
    ['h', 'row-b   2222222', 'x'],
  ];
  let prev;
  for (const lines of frames) {
    const next = layout(lines.map((text) => ({ text, style: text.startsWith('row-a') ? ('reverse' as const) : undefined })), vt.columns, vt.rows, true);
    vt.write(diff(prev, next));
    prev = next;
    assert.equal(vt.text(), lines.map((l) => l.slice(0, 10)).join('\n'));
  }
});
