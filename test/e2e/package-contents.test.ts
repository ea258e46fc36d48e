// What `npm pack` ships: only what runs (the CLI bundle, the library, its declarations, the bin
// scripts), README, LICENSE, CHANGELOG and the bundled packages' notices; the dependencies a global
// install pulls (docs/package-choices.md); and the docs' figures about the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../support/cli.js';
import { rocketCrd } from '../support/apiserver/seed.js';

const root = repoRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;

interface Packed {
  entryCount: number;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

let packed: Packed | undefined;
/** `npm pack --dry-run --json` of the tree as built (scripts skipped: the test's build is current). */
function npmPack(): Packed | string {
  if (packed) return packed;
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  if (r.error) return `npm not runnable: ${r.error.message}`;
  assert.equal(r.status, 0, r.stderr);
  return (packed = (JSON.parse(r.stdout) as Packed[])[0]!);
}

test('npm pack contains the bundle, library, types, bin scripts, README, LICENSE, CHANGELOG and notices only', (t) => {
  const p = npmPack();
  if (typeof p === 'string') return t.skip(p);
  const files = p.files.map((f) => f.path);
  for (const f of files) {
    assert.match(f, /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|bin\/(kdyn|kubectl-kdyn|kubectl_complete-kdyn|package\.json)|dist\/THIRD_PARTY_NOTICES\.md|dist\/cli\/.+\.js|dist\/cli\/package\.json|dist\/lib\/index\.js|dist\/types\/.+\.d\.ts)$/, f);
  }
  for (const f of ['LICENSE', 'README.md', 'CHANGELOG.md', 'dist/THIRD_PARTY_NOTICES.md', 'bin/kdyn', 'bin/kubectl-kdyn', 'bin/kubectl_complete-kdyn', 'dist/cli/bin.js', 'dist/cli/layout-writer.js', 'dist/lib/index.js', 'dist/types/index.d.ts']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
});

test('every declaration packed is of a module that exists (the build empties dist/types before tsc)', (t) => {
  const p = npmPack();
  if (typeof p === 'string') return t.skip(p);
  const declarations = p.files.map((f) => f.path).filter((f) => f.startsWith('dist/types/'));
  assert.ok(declarations.length > 10, `${declarations.length} declarations`);
  for (const d of declarations) {
    const source = join(root, 'src', d.slice('dist/types/'.length).replace(/\.d\.ts$/, '.ts'));
    assert.ok(existsSync(source), `${d}: no ${source}`);
  }
});

test('a global install pulls only the library runtime dependencies', () => {
  assert.deepEqual(Object.keys(pkg.dependencies!).sort(), ['@types/node', 'env-paths', 'js-yaml']);
  assert.deepEqual(pkg.peerDependenciesMeta!['@kubernetes/client-node'], { optional: true });
  assert.deepEqual(pkg.bin, { kdyn: 'bin/kdyn', 'kubectl-kdyn': 'bin/kubectl-kdyn', 'kubectl_complete-kdyn': 'bin/kubectl_complete-kdyn' });
  const dot = (pkg.exports as Record<string, Record<string, string>>)['.']!;
  assert.equal(Object.keys(dot)[0], 'types', 'types first in exports');
  assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
});

test('installing the package runs no script: it is built when packed (prepack), not on the user machine', () => {
  const scripts = pkg.scripts as Record<string, string>;
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(scripts[hook], undefined, `no "${hook}" script`);
  assert.match(scripts.prepack!, /scripts\/build\.mjs --declarations/);
});

test('package.json names the repository, homepage, issue tracker and keywords (npm provenance needs repository)', () => {
  const repository = pkg.repository as unknown as { type: string; url: string };
  assert.equal(repository.type, 'git');
  assert.match(repository.url, /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
  const base = repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  assert.equal(pkg.homepage as unknown as string, `${base}#readme`);
  assert.deepEqual(pkg.bugs, { url: `${base}/issues` });
  assert.ok((pkg.keywords as unknown as string[]).includes('kubernetes'));
});

test('no @types package for a dependency that ships its own types', () => {
  for (const name of Object.keys(pkg.devDependencies!).filter((n) => n.startsWith('@types/'))) {
    const typed = name.slice('@types/'.length);
    const manifest = join(root, 'node_modules', typed, 'package.json');
    if (!existsSync(manifest)) continue; // @types/node and the like: nothing to compare with
    const own = JSON.parse(readFileSync(manifest, 'utf8')) as { types?: string; typings?: string };
    assert.equal(own.types ?? own.typings, undefined, `${typed} ships its own types (${own.types ?? own.typings}): drop ${name}`);
  }
  // js-yaml 5 is the case this guards: it ships dist/js-yaml.d.ts, so the check above is not vacuous.
  assert.ok(existsSync(join(root, 'node_modules/js-yaml/dist/js-yaml.d.ts')));
});

test('THIRD_PARTY_NOTICES.md names every package bundled into dist/cli, with its license file verbatim', () => {
  const inputs = JSON.parse(readFileSync(join(root, 'build/cli-inputs.json'), 'utf8')) as string[];
  const notices = readFileSync(join(root, 'dist/THIRD_PARTY_NOTICES.md'), 'utf8');
  // The package directories of the bundle's inputs, found here independently of the build script.
  const dirs = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    dirs.add(input.slice(0, at) + 'node_modules/' + rest.slice(0, rest[0]!.startsWith('@') ? 2 : 1).join('/'));
  }
  const names = new Set<string>();
  for (const dir of dirs) {
    const { name, version } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; version: string };
    names.add(`${name}@${version}`);
    const heading = notices.indexOf(`\n## ${name}@${version}\n`);
    assert.ok(heading >= 0, `${name}@${version} (${dir}) is in the notices`);
    const next = notices.indexOf('\n## ', heading + 1);
    const section = notices.slice(heading, next < 0 ? undefined : next);
    const licenseFiles = readdirSync(join(root, dir)).filter((f) => /^(un)?licen[cs]e|^copying/i.test(f));
    for (const f of licenseFiles) {
      assert.ok(section.includes(readFileSync(join(root, dir, f), 'utf8').trim()), `${name}@${version}: ${f} is in its section verbatim`);
    }
    if (licenseFiles.length === 0) assert.match(section, /ships no license file/, `${name}@${version} has no license file: the notices say so`);
  }
  // Each satellite is there (so the input list is the whole bundle), and nothing else is listed.
  for (const p of ['@kubernetes/client-node', 'yargs', 'js-yaml', 'env-paths']) assert.ok([...names].some((n) => n.startsWith(`${p}@`)), p);
  const listed = [...notices.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), [...names].sort());
  const stated = /copies of the packages it runs \((\d+) of\s+them/.exec(readFileSync(join(root, 'docs/install.md'), 'utf8'));
  assert.equal(Number(stated?.[1]), names.size, 'docs/install.md ("Third-party code") states how many packages the bundle holds');
});

test("the docs' figures come from the tree: the packed size and the demo's rocket versions", (t) => {
  const serverReadme = readFileSync(join(root, 'test/support/apiserver/README.md'), 'utf8');
  const rocketVersions = (rocketCrd().spec as { versions: Array<{ name: string }> }).versions.map((v) => v.name);
  const versions = /rockets\.demo\.kdyn\.dev`[^)]*versions (\S+) and (\S+),/.exec(serverReadme);
  assert.ok(versions, "the local API server's README describes the demo rockets CRD");
  assert.deepEqual([versions[1], versions[2]].sort(), [...rocketVersions].sort());

  const p = npmPack();
  if (typeof p === 'string') return t.skip(p);
  const choices = readFileSync(join(root, 'docs/package-choices.md'), 'utf8');
  const m = /\((\d+) files, (\d+) kB packed, ([\d.]+) MB unpacked[;)]/.exec(choices);
  assert.ok(m, 'docs/package-choices.md states the packed figures as "(N files, N kB packed, N MB unpacked"');
  // Within 10%: the figures are rounded and move a little with every change; a stale one does not pass.
  const current = `${p.entryCount} files, ${Math.round(p.size / 1000)} kB packed, ${(p.unpackedSize / 1e6).toFixed(1)} MB unpacked`;
  const near = (stated: number, actual: number): boolean => Math.abs(stated - actual) <= actual * 0.1;
  assert.ok(near(Number(m[1]), p.entryCount) && near(Number(m[2]) * 1000, p.size) && near(Number(m[3]) * 1e6, p.unpackedSize), `docs/package-choices.md says (${m[0].slice(1, -1)}); npm pack says (${current})`);
});

test('the bundled-package audit fails on an advisory for a bundled package only, and skips without an audit endpoint', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-audit-'));
  const audit = (report: unknown): { status: number | null; out: string; err: string } => {
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
    const r = spawnSync(process.execPath, [join(root, 'scripts/audit-bundled.mjs'), '--report', join(dir, 'report.json')], { cwd: root, encoding: 'utf8' });
    return { status: r.status, out: r.stdout, err: r.stderr };
  };
  try {
    // js-yaml is bundled into dist/cli/lib/js-yaml.js; typescript is a build tool, never bundled.
    const jsYaml = { name: 'js-yaml', severity: 'high', range: '<99', nodes: ['node_modules/js-yaml'] };
    const typescript = { name: 'typescript', severity: 'low', range: '<99', nodes: ['node_modules/typescript'] };
    const both = audit({ vulnerabilities: { 'js-yaml': jsYaml, typescript } });
    assert.equal(both.status, 1, both.err);
    assert.match(both.err, new RegExp(`js-yaml@${lock.packages['node_modules/js-yaml']!.version.replace(/\./g, '\\.')} \\(high`));
    assert.doesNotMatch(both.err, /typescript/);
    assert.match(both.out, /not bundled, not failing: typescript@/);

    const devOnly = audit({ vulnerabilities: { typescript } });
    assert.equal(devOnly.status, 0, devOnly.err);
    assert.match(devOnly.out, /no advisory for the \d+ bundled packages/);

    const refused = audit({ message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk' });
    assert.equal(refused.status, 0);
    assert.match(refused.out, /SKIPPED: the registry's audit endpoint did not answer \(405 Method Not Allowed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
