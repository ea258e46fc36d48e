// The third-party packages esbuild bundled into dist/cli, and the notices file that ships their
// license texts (dist/THIRD_PARTY_NOTICES.md). Used by scripts/build.mjs, which writes the notices
// and build/cli-inputs.json (every input file of the CLI bundle), and by scripts/audit-bundled.mjs,
// which audits these packages: npm audit cannot see copies inside a bundle.
// test/e2e/package-contents.test.ts re-derives the package list from build/cli-inputs.json and checks
// the notices against each package's own license file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const NOTICES_PATH = 'dist/THIRD_PARTY_NOTICES.md';
export const CLI_INPUTS_PATH = 'build/cli-inputs.json';

// The package directory of an esbuild input: everything up to the last `node_modules/<name>` or
// `node_modules/@scope/<name>` (a nested copy is its own package). kdyn's own files have none.
const PACKAGE_DIR = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//;

// License files as packages name them (LICENSE, LICENSE.md, license, LICENCE-MIT, UNLICENSE, COPYING.txt...).
export const LICENSE_FILE = /^(licen[cs]e|unlicen[cs]e|copying)([.-].*)?$/i;

/**
 * The bundled packages, sorted by name then version: one entry per name and version (npm may install
 * the same version in two places).
 * `inputs`: esbuild metafile input paths, relative to `root`.
 */
export function bundledPackages(root, inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const dir = PACKAGE_DIR.exec(input)?.[1];
    if (dir) dirs.add(dir);
  }
  const packages = new Map();
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const licenseFiles = readdirSync(join(root, dir)).filter((f) => LICENSE_FILE.test(f)).sort();
    packages.set(`${manifest.name}@${manifest.version}`, {
      name: manifest.name,
      version: manifest.version,
      license: typeof manifest.license === 'string' ? manifest.license : manifest.license?.type ?? 'UNKNOWN',
      author: typeof manifest.author === 'string' ? manifest.author : manifest.author?.name,
      repository: typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url,
      licenseTexts: licenseFiles.map((f) => ({ file: f, text: readFileSync(join(root, dir, f), 'utf8').trim() })),
    });
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** The notices file: for each package, its name, version, SPDX license and its license file(s) verbatim. */
export function renderNotices(kdynVersion, packages) {
  const lines = [
    '# Third-party notices',
    '',
    `kdyn ${kdynVersion}'s command-line bundle (dist/cli) contains code from the packages below.`,
    'Each is listed with the license its package.json declares and the license file it ships, verbatim.',
    'The library (dist/lib) bundles nothing: it imports its dependencies from node_modules.',
    '',
  ];
  for (const p of packages) {
    lines.push(`## ${p.name}@${p.version}`, '', `License: ${p.license}`, '');
    if (p.licenseTexts.length === 0) {
      // Nothing to copy: say what the package.json does say.
      lines.push('The package ships no license file; its package.json declares the license above.', '');
      if (p.author) lines.push(`Author: ${p.author}`, '');
      if (p.repository) lines.push(`Repository: ${p.repository}`, '');
    }
    for (const { file, text } of p.licenseTexts) lines.push(`${file}:`, '', '```', text, '```', '');
  }
  return lines.join('\n');
}

/** The bundled packages of the last build (build/cli-inputs.json), or undefined if there was none. */
export function lastBuildPackages(root) {
  const path = join(root, CLI_INPUTS_PATH);
  if (!existsSync(path)) return undefined;
  return bundledPackages(root, JSON.parse(readFileSync(path, 'utf8')));
}
