/**
 * src/startup/code-cache.ts's checks, on their own: the entry header (a corrupt entry must never reach
 * V8) and the private-directory rule. The end-to-end runs with planted entries are
 * test/e2e/code-cache-trust.test.ts; the Node internals it relies on, test/e2e/startup-mechanisms.test.ts.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkedEntry, crc32Function, entryBytes, ENTRY_HEADER, privateDir } from '../../../src/startup/code-cache.js';

const scratch = mkdtempSync(join(tmpdir(), 'kdyn-code-cache-unit-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const fresh = (mode = 0o700): string => {
  const dir = join(scratch, `d${n++}`);
  mkdirSync(dir);
  chmodSync(dir, mode);
  return dir;
};

test('an entry round-trips; a wrong magic, length or checksum, or a truncated entry, is refused', () => {
  const crc32 = crc32Function({});
  const data = Buffer.from('V8 bytes '.repeat(100));
  const entry = entryBytes(data, crc32);
  assert.equal(entry.length, ENTRY_HEADER + data.length);
  assert.ok(checkedEntry(entry, crc32)?.equals(data));
  const spoilt = (at: number) => {
    const copy = Buffer.from(entry);
    copy[at] = copy[at]! ^ 0xff;
    return copy;
  };
  assert.equal(checkedEntry(spoilt(0), crc32), undefined, 'magic');
  assert.equal(checkedEntry(spoilt(4), crc32), undefined, 'checksum field');
  assert.equal(checkedEntry(spoilt(8), crc32), undefined, 'length field');
  assert.equal(checkedEntry(spoilt(ENTRY_HEADER + 10), crc32), undefined, 'a flipped byte of V8 data');
  assert.equal(checkedEntry(entry.subarray(0, entry.length - 1), crc32), undefined, 'truncated');
  assert.equal(checkedEntry(entry.subarray(0, ENTRY_HEADER), crc32), undefined, 'a header alone');
});

test('privateDir: made 0700 one level at a time, then private; missing without create', () => {
  const base = fresh();
  assert.equal(privateDir(base, ['a', 'b'], false), 'missing');
  assert.equal(privateDir(base, ['a', 'b'], true), 'private');
  assert.equal(statSync(join(base, 'a', 'b')).mode & 0o777, 0o700);
  assert.equal(privateDir(base, ['a', 'b'], false), 'private');
});

test('privateDir: anything others could write is unsafe, and is left as it is', () => {
  const groupBase = fresh(0o770);
  assert.equal(privateDir(groupBase, ['a'], true), 'unsafe');
  assert.equal(statSync(groupBase).mode & 0o777, 0o770, 'not repaired');
  const sticky = fresh(0o1777);
  assert.equal(privateDir(sticky, ['a'], true), 'private', 'a sticky base (as /tmp) with our own 0700 directory');
  chmodSync(join(sticky, 'a'), 0o755);
  assert.equal(privateDir(sticky, ['a'], false), 'unsafe', 'a 0755 directory of ours');
  const linked = fresh();
  symlinkSync(fresh(), join(linked, 'a'));
  assert.equal(privateDir(linked, ['a'], true), 'unsafe', 'a symlink on the way');
  const file = fresh();
  writeFileSync(join(file, 'a'), '');
  assert.equal(privateDir(file, ['a'], true), 'unsafe', 'a file where a directory should be');
  assert.equal(privateDir(join(scratch, 'no', 'such'), ['a'], true), 'unsafe', 'a base whose parent is missing is not made');
});
