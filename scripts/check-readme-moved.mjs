// Checks that nothing of an old README was lost when it was split into docs (issue 23): every line
// of the old README, whitespace collapsed, must appear in one of the current Markdown files, or be
// listed as reworded. Prints each old heading with the file that now holds most of its lines, then
// the lines found nowhere.
//
//   node scripts/check-readme-moved.mjs [COMMIT]   (default 0579a1a, the last commit with the long README)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const commit = process.argv[2] ?? '0579a1a';
const old = execFileSync('git', ['show', `${commit}:README.md`], { cwd: root, encoding: 'utf8' });

function markdown(dir) {
  const out = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !['node_modules', 'build', 'dist', '.git'].includes(e.name)) out.push(...markdown(p));
    else if (e.isFile() && e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

const norm = (s) => s.replace(/\s+/g, ' ').trim();
const files = markdown('.').map((f) => f.replace(/^\.\//, ''));
const texts = new Map(files.map((f) => [f, norm(readFileSync(join(root, f), 'utf8'))]));

/** A line worth checking: text, not a fence, a table rule or a bare list marker. */
const meaningful = (l) => !/^\s*(```.*|\|[-|\s]+\||-|)\s*$/.test(l);
const strip = (l) => norm(l.replace(/^\s*([-*]|\d+\.)\s+/, '').replace(/^#+\s+/, ''));

let heading = '(top)';
const sections = new Map();
for (const line of old.split('\n')) {
  if (/^#{1,4} /.test(line) && !line.startsWith('# or')) heading = line;
  if (!sections.has(heading)) sections.set(heading, []);
  if (meaningful(line)) sections.get(heading).push(strip(line));
}

let lost = 0;
for (const [h, lines] of sections) {
  const where = new Map();
  const missing = [];
  for (const l of lines.slice(1)) {
    const hits = files.filter((f) => texts.get(f).includes(l));
    if (hits.length === 0) missing.push(l);
    for (const f of hits) where.set(f, (where.get(f) ?? 0) + 1);
  }
  const ranked = [...where].sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f} (${n})`);
  console.log(`${h}\n  -> ${ranked.slice(0, 3).join(', ') || 'nowhere'}; ${lines.length - 1 - missing.length}/${lines.length - 1} lines found`);
  for (const l of missing) console.log(`  not found verbatim: ${l}`);
  lost += missing.length;
}
console.log(`\n${lost} line(s) not found verbatim (reworded or lost: read them above)`);
