/** The watch body decoder: any chunk split, multi-byte characters, pretty-printed and joined values, errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonStreamDecoder, WatchDecodeError } from '../../../src/watch/decoder.js';
import { loadExchange } from '../../support/exchanges.js';

function decodeIn(body: Buffer, splits: number[]): unknown[] {
  const d = new JsonStreamDecoder();
  const out: unknown[] = [];
  let from = 0;
  for (const at of [...splits, body.length]) {
    out.push(...d.push(body.subarray(from, at)));
    from = at;
  }
  out.push(...d.end());
  return out;
}

const events = [
  { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' }, data: { text: 'grüße, 日本語, 🚀', quote: 'a "b" \\ {c}' } } },
  { type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '2' }, data: { nested: { x: [1, { y: '}' }] } } } },
  { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } },
];
const ndjson = Buffer.from(events.map((e) => JSON.stringify(e) + '\n').join(''));

test('every split point of an NDJSON body decodes to the same events', () => {
  for (let i = 0; i <= ndjson.length; i++) assert.deepEqual(decodeIn(ndjson, [i]), events, `split at ${i}`);
});

test('one byte at a time (multi-byte characters cut in the middle)', () => {
  const splits = Array.from({ length: ndjson.length }, (_, i) => i);
  assert.deepEqual(decodeIn(ndjson, splits), events);
});

test('a pretty-printed Status (recording 32, 410 Expired) and a last value without newline', () => {
  const ex = loadExchange(32);
  const body = Buffer.from(ex.body + '\n' + JSON.stringify(events[0]));
  for (const split of [0, 7, 40, body.length - 3]) {
    const out = decodeIn(body, [split]) as Array<{ type: string; object: { code?: number; reason?: string } }>;
    assert.equal(out.length, 2);
    assert.equal(out[0]!.type, 'ERROR');
    assert.equal(out[0]!.object.code, 410);
    assert.equal(out[0]!.object.reason, 'Expired');
    assert.deepEqual(out[1], events[0]);
  }
});

test('several values on one line, blank lines between', () => {
  const body = Buffer.from(`${JSON.stringify(events[0])}${JSON.stringify(events[1])}\n\n  \r\n${JSON.stringify(events[2])}\n`);
  assert.deepEqual(decodeIn(body, [5]), events);
});

test('garbage, a stray closing brace and a body cut inside a value are errors', () => {
  assert.throws(() => decodeIn(Buffer.from('hello\n'), []), (e: unknown) => e instanceof WatchDecodeError && /invalid JSON: "hello"/.test(e.message));
  assert.throws(() => decodeIn(Buffer.from('{"a":1}}\n'), []), WatchDecodeError);
  assert.throws(() => decodeIn(Buffer.from('{"type":"ADDED","object":{"a":'), []), /ended inside a JSON value/);
  assert.throws(() => decodeIn(Buffer.from('{"a":\n"b"\n'), []), /ended inside a JSON value/);
});

test('an event longer than the limit is refused instead of buffered without bound', () => {
  const d = new JsonStreamDecoder(1000);
  assert.throws(() => d.push(Buffer.from('{"a":"' + 'x'.repeat(2000))), /longer than 1000 bytes/);
});

test('the recorded v1.32 watch streams (29: MODIFIED, DELETED, BOOKMARK; 33: Table events) decode line by line', () => {
  const r29 = decodeIn(Buffer.from(loadExchange(29).body), [100, 1000]) as Array<{ type: string; object: { metadata: { resourceVersion: string } } }>;
  assert.deepEqual(r29.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`), ['MODIFIED 242', 'DELETED 243', 'BOOKMARK 243']);
  const r33 = decodeIn(Buffer.from(loadExchange(33).body), [333]) as Array<{ type: string; object: { kind: string; rows: Array<{ cells: unknown[] }> } }>;
  assert.ok(r33.length >= 2);
  for (const e of r33) {
    assert.equal(e.object.kind, 'Table');
    assert.equal(e.object.rows.length, 1);
  }
});
