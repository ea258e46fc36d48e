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
import { describeTarget, median, meets, parseBenchArgs, ratio, selectCases, summarize, markdownTable } from '../../../bench/stats.js';
import { mergeCases } from '../../../bench/registry.js';
import { summaryTable } from '../../../bench/report.js';
import { isRealServer, serverFlags, serverKey } from '../../../bench/server.js';
import { customResult } from '../../../bench/runner.js';
import { countBenchGroups, crdGroupName, crdManifest, realServerLabel } from '../../../bench/real-server.js';
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
    assert.equal(meets({ kind: 'size', maxKiB: 288 }, 287.9, undefined), true);
    assert.equal(meets({ kind: 'size', maxKiB: 288 }, 288, undefined), false);
    assert.deepEqual([describeTarget({ kind: 'size', maxKiB: 288 }), describeTarget({ kind: 'absolute', maxMs: 40 })], ['<288 KiB', '<40 ms']);
  });

  test('markdown table marks misses and not-ready cases', () => {
    const ok: CaseResult = {
      name: 'a', description: '', status: 'ok', metric: 'wall', unit: 'ms', target: { kind: 'ratio', max: 1 }, server: 'real, small',
      kdyn: summarize('k', [20]), baseline: summarize('b', [10]), ratio: 2, pass: false,
    };
    const nr: CaseResult = { name: 'b', description: '', status: 'not-ready', reason: 'kdyn get exited 1', metric: 'wall', unit: 'ms', target: { kind: 'ratio', max: 1 }, server: 'local' };
    const md = markdownTable([ok, nr]).split('\n');
    assert.equal(md.length, 4);
    assert.match(md[2]!, /^\| a \| real, small \| 20\.0 ms \(20\.0\) \| 10\.0 ms \(10\.0\) \| 2\.00x \| <=1\.00x \| miss \|$/);
    assert.match(md[3]!, /^\| b \| local \| not-ready: kdyn get exited 1/);
    const table = summaryTable([ok, nr]).split('\n');
    assert.ok(table.some((l) => /│ a\s+│ real, small │\s+20\.0 ms │\s+10\.0 ms │\s+2\.00x │ <=1\.00x\s+│ MISS\s+│/.test(l)), table.join('\n'));
    assert.ok(table.some((l) => /│ b\s+│ local\s+│ not ready: kdyn get exited 1\s+│/.test(l)), table.join('\n'));
  });

  test('a custom case with samples of both tools: the ratio is shown, the target is on kdyn alone', () => {
    const base: CaseResult = { name: 'o', description: 'd', status: 'ok', metric: 'wall', unit: 'ms', target: { kind: 'absolute', maxMs: 5000 }, server: 'real, small' };
    const labels = { kdyn: 'kdyn watch', baseline: 'kubectl get -w' };
    const both = customResult(base, labels, [{ kdyn: 4000, baseline: 1000 }, { kdyn: 6000, baseline: 3000 }, { kdyn: 4500, baseline: 2000 }]);
    assert.deepEqual([both.kdyn!.median, both.baseline!.median, both.ratio, both.pass], [4500, 2000, 2.25, true]);
    assert.equal(both.baseline!.command, 'kubectl get -w');
    // A baseline missing from a run: no baseline figure at all rather than one from fewer runs.
    const partial = customResult(base, labels, [{ kdyn: 7000, baseline: 1000 }, { kdyn: 8000 }]);
    assert.deepEqual([partial.kdyn!.median, partial.baseline, partial.ratio, partial.pass], [7500, undefined, undefined, false]);
  });
});

describe('bench arguments', () => {
  test('defaults', () => {
    assert.deepEqual(parseBenchArgs([]), { cases: [], runs: 15, warmup: 2, list: false, help: false, server: 'local', crdGroups: 1000 });
  });
  test('--server and --crd-groups', () => {
    const a = parseBenchArgs(['--server', 'real', '--crd-groups=50']);
    assert.deepEqual([a.server, a.crdGroups], ['real', 50]);
    assert.equal(parseBenchArgs(['--server=local']).server, 'local');
    assert.throws(() => parseBenchArgs(['--server', 'kind']), /"local" or "real", got "kind"/);
    assert.throws(() => parseBenchArgs(['--crd-groups', '0']), /integer >= 1/);
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
  test('an opt-in case runs only when named exactly', () => {
    const all = [{ name: 'outage-30s' }, { name: 'outage-180s', optIn: true }];
    assert.deepEqual(selectCases(all, []).map((c) => c.name), ['outage-30s']);
    assert.deepEqual(selectCases(all, ['outage*']).map((c) => c.name), ['outage-30s']);
    assert.deepEqual(selectCases(all, ['outage-180s']).map((c) => c.name), ['outage-180s']);
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
  test('real servers: one per cluster whichever user, never a local server\'s key; labels', () => {
    assert.ok(isRealServer({ real: 'small', user: 'token' }));
    assert.ok(!isRealServer({ seed: 'demo' }));
    assert.equal(serverKey({ real: 'small', user: 'token' }), serverKey({ real: 'small', user: 'clientCert' }));
    assert.notEqual(serverKey({ real: 'small', user: 'token' }), serverKey({ real: 'crds', user: 'token' }));
    assert.notEqual(serverKey({ real: 'small', user: 'token' }), serverKey({}));
    assert.equal(realServerLabel({ real: 'small', user: 'clientCert' }, 1000), 'real, small');
    assert.equal(realServerLabel({ real: 'crds', user: 'token' }, 250), 'real, 250 CRD groups');
  });
  test('the CRD-group cluster: one CRD per group; only its own groups are counted in /apis', () => {
    assert.equal(crdGroupName(7), 'g0007.bench.kdyn.example');
    const crd = crdManifest(crdGroupName(1)) as { metadata: { name: string }; spec: { group: string; versions: Array<{ served: boolean }> } };
    assert.equal(crd.metadata.name, 'widgets.g0001.bench.kdyn.example');
    assert.equal(crd.spec.group, 'g0001.bench.kdyn.example');
    assert.ok(crd.spec.versions[0]!.served);
    const groups = [{ name: 'apps' }, { name: crdGroupName(1) }, { name: crdGroupName(2) }, { name: 'bench.kdyn.example.evil.io' }];
    assert.equal(countBenchGroups({ groups }), 2);
    assert.equal(countBenchGroups({}), 0);
  });
});

test('--server real without KUBEBUILDER_ASSETS stops with one line (exit 2)', { timeout: 30_000 }, () => {
  const env = { ...process.env };
  delete env.KUBEBUILDER_ASSETS;
  const r = spawnSync(process.execPath, [join(root, 'build/bench/main.js'), '--server', 'real'], { cwd: root, env, encoding: 'utf8', timeout: 25_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^bench: --server real needs KUBEBUILDER_ASSETS: [^\n]+\n$/);
});

test('bench smoke: the version case with 3 runs writes consistent JSON', { timeout: 30_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-test-'));
  try {
    const json = join(dir, 'out.json');
    const r = spawnSync(process.execPath, [join(root, 'build/bench/main.js'), '--case', 'version', '--runs', '3', '--warmup', '1', '--json', json], {
      cwd: root, encoding: 'utf8', timeout: 25_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^version +\[none\] kdyn [\d.]+ ms/m);
    const doc = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(doc.results.length, 1);
    const res = doc.results[0];
    assert.equal(res.status, 'ok', res.reason);
    assert.equal(res.server, 'none');
    assert.equal(doc.server, 'local');
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
