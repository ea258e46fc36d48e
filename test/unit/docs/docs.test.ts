/**
 * The documentation stays in step with the tree: the generated parts (command pages from
 * src/cli/spec.ts, the API reference from src/index.ts) are current, every relative link and every
 * source path the pages name exists, the architecture page names every folder of src/, and the
 * README stays a front page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from '../../support/cli.js';
import { COMMANDS } from '../../../src/cli/spec.js';

const root = repoRoot();

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownUnder(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** The pages that describe the current tree (the CHANGELOG and dated results describe the past). */
const CURRENT = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'test/support/README.md', 'test/support/apiserver/README.md', ...markdownUnder('docs')];
const ALL = [...CURRENT, 'CHANGELOG.md', ...markdownUnder('bench/results')];

const read = (page: string): string => readFileSync(join(root, page), 'utf8');
/** The text outside fenced code blocks. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```$/gm, '');

/** GitHub's anchors for a page's headings (lower case, punctuation dropped, spaces to dashes, -N for repeats). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function run(script: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(root, script), '--check'], { cwd: root, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the command pages are generated from the current command table (node scripts/gen-command-docs.mjs)', () => {
  const r = run('scripts/gen-command-docs.mjs');
  assert.equal(r.status, 0, r.out);
});

test("docs/library.md's API reference lists the current exports of src/index.ts (node scripts/gen-api-docs.mjs)", () => {
  const r = run('scripts/gen-api-docs.mjs');
  assert.equal(r.status, 0, r.out);
});

test('README.md is a front page: at most 15 KB, and links every command page and every page of docs/', () => {
  const readme = read('README.md');
  assert.ok(Buffer.byteLength(readme) <= 15 * 1024, `README.md is ${Buffer.byteLength(readme)} bytes`);
  for (const c of COMMANDS.filter((c) => !c.hidden)) assert.ok(readme.includes(`](docs/commands/${c.name}.md)`), `README.md links docs/commands/${c.name}.md`);
  for (const page of markdownUnder('docs').filter((p) => !p.startsWith(join('docs', 'commands', '')))) {
    assert.ok(readme.includes(`](${page})`), `README.md links ${page}`);
  }
});

test('every relative link of the docs points at a file that exists, and at a heading of it', () => {
  const broken: string[] = [];
  for (const page of ALL) {
    for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/i.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : join(root, dirname(page), path);
      if (!existsSync(target)) {
        broken.push(`${page}: ${href} (no such file)`);
        continue;
      }
      if (anchor && statSync(target).isFile() && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${page}: ${href} (no such heading in ${relative(root, target)})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every source file the current docs name exists', () => {
  const missing: string[] = [];
  for (const page of CURRENT) {
    for (const m of read(page).matchAll(/`((?:src|test|bench|scripts|bin)\/[\w./-]+?\.(?:ts|mjs|js|json))`/g)) {
      if (!existsSync(join(root, m[1]!))) missing.push(`${page}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the architecture page names every folder of src/', () => {
  const page = read('docs/design/architecture.md');
  const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.ok(folders.length > 0);
  for (const f of folders) assert.ok(page.includes(`src/${f}/`), `docs/design/architecture.md names src/${f}/`);
});
