// Audits the packages bundled into dist/cli (docs/install.md, "Third-party code"). A user's `npm audit` cannot see them:
// they are code inside kdyn's bundle, not packages in the user's node_modules. So CI (.ci/run) runs
// `npm audit` on kdyn's own lockfile, which pins the versions the build bundled, and fails on an
// advisory for any bundled package at the bundled version; advisories for build-only packages are
// printed and do not fail.
// Usage (after a build): node scripts/audit-bundled.mjs [--report audit.json]
//   --report: read an `npm audit --json` report from a file instead of running npm audit.
// Exit 0: no advisory for a bundled package, or the registry's audit endpoint cannot be reached
// (skipped, saying so); 1: advisories for bundled packages (listed); 2: no build to audit.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastBuildPackages } from './bundled-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundled = lastBuildPackages(root);
if (!bundled) {
  console.error('audit-bundled: no build/cli-inputs.json; run `npm run build` first');
  process.exit(2);
}

const reportAt = process.argv.indexOf('--report');
let text;
if (reportAt > 0) {
  text = readFileSync(process.argv[reportAt + 1], 'utf8');
} else {
  // npm audit exits 1 when it finds anything; the JSON says what.
  const r = spawnSync('npm', ['audit', '--json', '--include=dev'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  if (r.error) {
    console.log(`audit-bundled: SKIPPED: npm audit did not run (${r.error.message})`);
    process.exit(0);
  }
  text = r.stdout;
}
let report;
try {
  report = JSON.parse(text);
} catch {
  report = {};
}
if (!report.vulnerabilities) {
  // e.g. a registry mirror that does not serve the audit endpoint (405 Method Not Allowed).
  const why = report.message ?? report.error?.summary ?? 'no report';
  console.log(`audit-bundled: SKIPPED: the registry's audit endpoint did not answer (${String(why).split('\n')[0]}); ${bundled.length} bundled packages not audited`);
  process.exit(0);
}

// The lockfile's version of each flagged node (node_modules/a/node_modules/b), to match the bundled copy.
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const bundledIds = new Set(bundled.map((p) => `${p.name}@${p.version}`));
const bad = [];
for (const [name, v] of Object.entries(report.vulnerabilities)) {
  const versions = (v.nodes ?? []).map((node) => lock.packages?.[node]?.version).filter(Boolean);
  const hits = versions.filter((version) => bundledIds.has(`${name}@${version}`));
  const line = `${name}@${[...new Set(versions)].join(',') || '?'} (${v.severity}${v.range ? `, affected ${v.range}` : ''})`;
  if (hits.length) bad.push(line);
  else console.log(`audit-bundled: not bundled, not failing: ${line}`);
}
if (bad.length) {
  console.error(`audit-bundled: advisories for packages bundled into dist/cli:\n  ${bad.join('\n  ')}`);
  process.exit(1);
}
console.log(`audit-bundled: no advisory for the ${bundled.length} bundled packages`);
