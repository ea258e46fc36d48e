/**
 * HTTP/1.1's syntax apart from any socket (src/transport/http1.ts): the response head read from bytes
 * as they come, wherever the reads split them, and the body's framing. test/unit/transport/wire.test.ts
 * runs the same code through real sockets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyBytes, framingOf, HeadReader, MAX_INTERIM_RESPONSES } from '../../../src/transport/http1.js';

const INTERIM = 'HTTP/1.1 100 Continue\r\n\r\n';
const FINAL = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 7\r\n\r\n';

test('a head after an interim one, split at every byte: the same head and the same bytes after it', () => {
  const bytes = Buffer.from(`${INTERIM}${FINAL}{"a":1}`, 'latin1');
  for (let cut = 1; cut < bytes.length; cut++) {
    const reader = new HeadReader();
    const first = reader.push(bytes.subarray(0, cut));
    const got = first ?? reader.push(bytes.subarray(cut));
    assert.ok(got, `cut at ${cut}`);
    assert.equal(got.head.status, 200);
    assert.deepEqual(got.head.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(got.head.headers['content-length'], '7');
    assert.equal(got.head.keepAlive, true);
    const rest = first ? Buffer.concat([first.rest, bytes.subarray(cut)]) : got.rest;
    assert.equal(rest.toString('latin1'), '{"a":1}', `cut at ${cut}`);
  }
});

test(`more than ${MAX_INTERIM_RESPONSES} interim heads, and bytes that are not HTTP, fail with node:http's codes`, () => {
  const reader = new HeadReader();
  assert.throws(() => reader.push(Buffer.from(INTERIM.repeat(MAX_INTERIM_RESPONSES + 1))), { code: 'ERR_TOO_MANY_1XX' });
  assert.equal(new HeadReader().push(Buffer.from(INTERIM.repeat(MAX_INTERIM_RESPONSES))), undefined);
  assert.throws(() => new HeadReader().push(Buffer.from('SSH-2.0-OpenSSH\r\n')), { code: 'HPE_INVALID_CONSTANT' });
});

test('a Content-Length body across reads: delivered up to its length, the bytes past it returned once complete', () => {
  const framing = framingOf('GET', 200, { 'content-length': '5' });
  const delivered: string[] = [];
  const deliver = (b: Buffer) => delivered.push(b.toString());
  assert.equal(bodyBytes(framing, Buffer.from('abc'), deliver), undefined);
  assert.equal(bodyBytes(framing, Buffer.from('deXY'), deliver)?.toString(), 'XY');
  assert.deepEqual(delivered, ['abc', 'de']);
});

test('a chunked body across reads, and a body to the connection\'s end, which never completes by its bytes', () => {
  const chunked = framingOf('GET', 200, { 'transfer-encoding': 'chunked' });
  const out: string[] = [];
  assert.equal(bodyBytes(chunked, Buffer.from('3\r\nabc\r\n'), (b) => out.push(b.toString())), undefined);
  assert.equal(bodyBytes(chunked, Buffer.from('0\r\n\r\n'), (b) => out.push(b.toString()))?.length, 0);
  assert.deepEqual(out, ['abc']);
  const close = framingOf('GET', 200, {});
  assert.equal(close.kind, 'close');
  assert.equal(bodyBytes(close, Buffer.from('x'), (b) => out.push(b.toString())), undefined);
  assert.equal(framingOf('HEAD', 200, { 'content-length': '9' }).kind, 'none');
});
