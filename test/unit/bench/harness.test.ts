/**
 * The benchmark harness: its pure parts (statistics, verdicts, argument parsing, case merging) and
 * one short real run of the `version` case (3 runs), read back from its --json output.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, meets, parseBenchArgs, ratio, selectCases, summarize, markdownTable } from '../../../bench/stats.js';
import { mergeCases } from '../../../bench/registry.js';
import { summaryTable } from '../../../bench/report.js';
import { serverFlags, serverKey } from '../../../bench/server.js';
import type { BenchCase, CaseResult } from '../../../bench/types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('bench statistics', () => {
  test('median of odd and even counts, unsorted input, input untouched', () => {
    const xs = [5, 1, 4, 2, 3];
    assert.equal(median(xs), 3);
    assert.deepEqual(xs, [5, 1, 4, 2, 3]);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([7]), 7);
    assert.throws(() => median([]), /no samples/);
  });

  test('summarize keeps min, max and the samples', () => {
    const s = summarize('kdyn x', [30, 10, 20]);
    assert.deepEqual([s.median, s.min, s.max, s.samples.length], [20, 10, 30, 3]);
  });

  test('ratio and verdicts', () => {
    assert.equal(ratio(13, 10), 1.3);
    assert.equal(ratio(1, 0), undefined);
    assert.equal(meets({ kind: 'ratio', max: 1.3 }, 13, ratio(13, 10)), true);
    assert.equal(meets({ kind: 'ratio', max: 1.3 }, 14, ratio(14, 10)), false);
    assert.equal(meets({ kind: 'ratio', max: 1 }, 14, undefined), undefined);
    assert.equal(meets({ kind: 'absolute', maxMs: 1000 }, 999, undefined), true);
    assert.equal(meets({ kind: 'absolute', maxMs: 1000 }, 1000, undefined), false);
  });

  test('markdown table marks misses and not-ready cases', () => {
    const ok: CaseResult = {
      name: 'a', description: '', status: 'ok', metric: 'wall', unit: 'ms', target: { kind: 'ratio', max: 1 },
      kdyn: summarize('k', [20]), baseline: summarize('b', [10]), ratio: 2, pass: false,
    };
    const nr: CaseResult = { name: 'b', description: '', status: 'not-ready', reason: 'kdyn get exited 1', metric: 'wall', unit: 'ms', target: { kind: 'ratio', max: 1 } };
    const md = markdownTable([ok, nr]).split('\n');
    assert.equal(md.length, 4);
    assert.match(md[2]!, /^\| a \| 20\.0 ms \(20\.0\) \| 10\.0 ms \(10\.0\) \| 2\.00x \| <=1\.00x \| miss \|$/);
    assert.match(md[3]!, /not-ready: kdyn get exited 1/);
    const table = summaryTable([ok, nr]).split('\n');
    assert.ok(table.some((l) => /│ a\s+│\s+20\.0 ms │\s+10\.0 ms │\s+2\.00x │ <=1\.00x\s+│ MISS\s+│/.test(l)), table.join('\n'));
    assert.ok(table.some((l) => /│ b\s+│ not ready: kdyn get exited 1\s+│/.test(l)), table.join('\n'));
  });
});

describe('bench arguments', () => {
  test('defaults', () => {
    assert.deepEqual(parseBenchArgs([]), { cases: [], runs: 15, warmup: 2, list: false, help: false });
  });
  test('--case repeated and comma lists, --json, --runs in both spellings', () => {
    const a = parseBenchArgs(['--case', 'version', '--case=get-20k-name,get-20k-json', '--json', 'out.json', '--runs=3', '--warmup', '1']);
    assert.deepEqual(a.cases, ['version', 'get-20k-name', 'get-20k-json']);
    assert.equal(a.json, 'out.json');
    assert.equal(a.runs, 3);
    assert.equal(a.warmup, 1);
  });
  test('bad values and unknown arguments throw', () => {
    assert.throws(() => parseBenchArgs(['--runs', '0']), /integer >= 1/);
    assert.throws(() => parseBenchArgs(['--runs', 'x']), /integer/);
    assert.throws(() => parseBenchArgs(['--json']), /needs a value/);
    assert.throws(() => parseBenchArgs(['--fast']), /unknown argument "--fast"/);
  });
  test('case selection: exact names, prefixes, unknown names', () => {
    const all = [{ name: 'version' }, { name: 'get-20k-name' }, { name: 'get-20k-json' }];
    assert.deepEqual(selectCases(all, []).length, 3);
    assert.deepEqual(selectCases(all, ['get-20k*']).map((c) => c.name), ['get-20k-name', 'get-20k-json']);
    assert.throws(() => selectCases(all, ['nope']), /unknown case "nope"/);
  });
});

describe('bench case registry and servers', () => {
  const mk = (name: string, stub?: boolean): BenchCase => ({
    name, description: name, server: null, target: { kind: 'ratio', max: 1 }, baseline: { kind: 'none' }, stub,
  });
  test('a real case replaces a stub of the same name in place; duplicates warn', () => {
    const warnings: string[] = [];
    const merged = mergeCases(
      [
        { file: 'a.js', cases: [mk('x', true), mk('y', true), mk('z')] },
        { file: 'b.js', cases: [mk('y'), mk('z'), mk('w')] },
      ],
      warnings,
    );
    assert.deepEqual(merged.map((c) => `${c.name}${c.stub ? '*' : ''}`), ['x*', 'y', 'z', 'w']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /"z" is defined in a\.js and b\.js/);
  });
  test('server flags follow the local-apiserver interface; equal options share a key', () => {
    assert.deepEqual(serverFlags({ seed: 'demo', extraGroups: 300, discovery: 'legacy' }, '/k'), [
      '--port', '0', '--tls', '--kubeconfig', '/k', '--seed', 'demo', '--extra-groups', '300', '--discovery', 'legacy',
    ]);
    assert.equal(serverKey({ configmaps: 5, namespace: 'bench' }), serverKey({ seed: 'empty', namespace: 'bench', configmaps: 5 }));
    assert.notEqual(serverKey({ extraGroups: 1 }), serverKey({ extraGroups: 2 }));
  });
});

test('bench smoke: the version case with 3 runs writes consistent JSON', { timeout: 30_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-test-'));
  try {
    const json = join(dir, 'out.json');
    const r = spawnSync(process.execPath, [join(root, 'build/bench/main.js'), '--case', 'version', '--runs', '3', '--warmup', '1', '--json', json], {
      cwd: root, encoding: 'utf8', timeout: 25_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^version +kdyn [\d.]+ ms/m);
    const doc = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(doc.results.length, 1);
    const res = doc.results[0];
    assert.equal(res.status, 'ok', res.reason);
    assert.equal(res.kdyn.samples.length, 3);
    assert.equal(res.baseline.samples.length, 3);
    assert.equal(res.baseline.command, 'node -e 0');
    assert.equal(res.kdyn.median, median(res.kdyn.samples));
    assert.ok(Math.abs(res.ratio - res.kdyn.median / res.baseline.median) < 1e-9);
    assert.equal(res.pass, res.ratio <= 1.3);
    for (const s of [...res.kdyn.samples, ...res.baseline.samples]) assert.ok(s > 1 && s < 10_000, `sample ${s} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
