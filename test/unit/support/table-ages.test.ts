// The AGE-tolerant table comparison of the real-server tests (test/support/table-ages.ts): equal but
// for AGE cells that straddled a second (or a width), and still failing on any other difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ageRange, assertSameTables, maskAges } from '../../support/table-ages.js';

test('ageRange reads duration.HumanDuration\'s forms, with their precision; anything else is no age', () => {
  assert.deepEqual(ageRange('0s'), [0, 1]);
  assert.deepEqual(ageRange('119s'), [119, 120]);
  assert.deepEqual(ageRange('2m5s'), [125, 126]);
  assert.deepEqual(ageRange('10m'), [600, 660]);
  assert.deepEqual(ageRange('3h20m'), [12_000, 12_060]);
  assert.deepEqual(ageRange('2d3h'), [183_600, 187_200]);
  assert.deepEqual(ageRange('3y10d'), [3 * 365 * 86_400 + 864_000, 3 * 365 * 86_400 + 950_400]);
  for (const no of ['', '<unknown>', '<invalid>', 'front', '5', 's', '1s2m']) assert.equal(ageRange(no), undefined, no);
});

test('maskAges: the AGE cells and kubectl\'s padding after them, in every table; other columns as they are', () => {
  const text = 'NAME    DATA   AGE    TIER\nalpha   2      9s     front\nbeta    1      119s   back\n\nNAME    AGE\npod/x   2m5s\n';
  assert.deepEqual(maskAges(text), {
    text: 'NAME    DATA   <age> TIER\nalpha   2      <age> front\nbeta    1      <age> back\n\nNAME    <age>\npod/x   <age>\n',
    ages: ['9s', '119s', '2m5s'],
  });
  assert.deepEqual(maskAges('NAME  DATA\na     1\n').ages, [], 'no AGE column');
  // An empty cell after the AGE column (-L with a label the object lacks): its padding stays as it is.
  assert.deepEqual(maskAges('NAME   AGE     TIER   LABELS\na      2m16s          app=web\nb      9s      back   <none>\n'), {
    text: 'NAME   <age> TIER   LABELS\na      <age>        app=web\nb      <age> back   <none>\n',
    ages: ['2m16s', '9s'],
  });
  // Padding that is not the widest cell plus three spaces is kept, so it shows in a comparison.
  assert.equal(maskAges('NAME    AGE   TIER\nalpha   9s   front\n').text, 'NAME    <age> TIER\nalpha   9s   front\n');
});

test('assertSameTables: ages a second (and a column width) apart pass; any other difference, or ages far apart, fail', () => {
  const table = (a: string, b: string) => {
    const w = Math.max(3, a.length, b.length) + 3;
    return `NAME    ${'AGE'.padEnd(w)}TIER\nalpha   ${a.padEnd(w)}front\nbeta    ${b.padEnd(w)}back\n`;
  };
  assertSameTables(table('9s', '99s'), table('10s', '100s'));
  assertSameTables(table('119s', '119s'), table('2m', '2m1s'));
  assert.throws(() => assertSameTables(table('9s', '99s'), table('9s', '99s').replace('front', 'fronT')), /AGE cells masked/);
  assert.throws(() => assertSameTables(table('9s', '99s'), table('9s', '5m')), /AGE 99s and 5m are more than 60s apart/);
  assert.throws(() => assertSameTables('NAME   AGE\nx      <unknown>\n', 'NAME   AGE\nx      3s\n'));
  assert.throws(() => assertSameTables(table('9s', '10s'), table('9s', '10s').replace('front', ' front')), 'misaligned after the AGE column');
});
