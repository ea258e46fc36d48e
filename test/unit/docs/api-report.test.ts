/**
 * The API report (etc/kdyn.api.md) is the library's surface as the published declarations state it:
 * regenerated from dist/types by scripts/api-report.mjs, it must equal the checked-in file, so a
 * change to what `kdyn` exports shows in review as a diff of the report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DECLARATIONS, haveDeclarations, REPO_ROOT } from '../../support/tsc-strict.js';

const REPORT = join(REPO_ROOT, 'etc/kdyn.api.md');
const UPDATE = 'node scripts/build.mjs --declarations && node scripts/api-report.mjs';

/** The newest .ts file under src/ when it is newer than the declarations, else undefined. */
function newerSource(): string | undefined {
  const built = statSync(DECLARATIONS).mtimeMs;
  const walk = (dir: string): string | undefined => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const hit = e.isDirectory() ? walk(p) : p.endsWith('.ts') && statSync(p).mtimeMs > built ? p : undefined;
      if (hit) return hit;
    }
    return undefined;
  };
  return walk(join(REPO_ROOT, 'src'));
}

/** Why the declarations cannot be compared now, or undefined when they can. */
function unusable(): string | undefined {
  if (!haveDeclarations()) return `${DECLARATIONS} is missing: build with --declarations (npm test does)`;
  const newer = newerSource();
  return newer ? `dist/types is older than ${relative(REPO_ROOT, newer)}: build with --declarations (npm test does)` : undefined;
}

function check(report?: string): { status: number | null; out: string } {
  const args = [join(REPO_ROOT, 'scripts/api-report.mjs'), '--check', ...(report ? ['--report', report] : [])];
  const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('etc/kdyn.api.md is the surface of the current declarations (node scripts/api-report.mjs)', (t) => {
  const why = unusable();
  if (why) return t.skip(why);
  const r = check();
  assert.equal(r.status, 0, `${r.out}\nThe library's surface changed: review it, then run ${UPDATE} and commit etc/kdyn.api.md.`);
});

test('a report that differs from the declarations fails the check, naming the command that updates it', (t) => {
  const why = unusable();
  if (why) return t.skip(why);
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-api-report-'));
  try {
    const stale = join(dir, 'kdyn.api.md');
    // An export the surface no longer has: as if a name had been removed from src/index.ts without the report.
    writeFileSync(stale, readFileSync(REPORT, 'utf8').replace('### `connect`', '### `connect`\n\n```ts\nfunction removedExport(): void;\n```\n'));
    const r = check(stale);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /kdyn\.api\.md differs from the library's surface in dist\/types\/index\.d\.ts/);
    assert.ok(r.out.includes(`run: ${UPDATE}`), r.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the report names every value the built library exports", async (t) => {
  const why = unusable();
  if (why) return t.skip(why);
  const lib = (await import(pathToFileURL(join(REPO_ROOT, 'build/src/index.js')).href)) as Record<string, unknown>;
  const names = new Set([...readFileSync(REPORT, 'utf8').matchAll(/^### `(\w+)`$/gm)].map((m) => m[1]!));
  for (const name of Object.keys(lib)) assert.ok(names.has(name), `${name} is exported by build/src/index.js but not in etc/kdyn.api.md`);
  const exported = /^## Exported \((\d+) names\)$/m.exec(readFileSync(REPORT, 'utf8'));
  assert.equal(Number(exported?.[1]), names.size, 'the heading counts the names listed');
});
