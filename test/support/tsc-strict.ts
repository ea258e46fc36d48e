/**
 * Type-checks TypeScript files as a strict consumer of kdyn would (`strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`, NodeNext modules), with `kdyn` resolved to the built declarations
 * (dist/types, from `node scripts/build.mjs --declarations`). For generated types and typed examples.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this module runs from build/test/support). */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const DECLARATIONS = join(REPO_ROOT, 'dist/types/index.d.ts');

export function haveDeclarations(): boolean {
  return existsSync(DECLARATIONS);
}

/** Writes `dir`/tsconfig.json for `files` (relative to `dir`) and runs tsc; `out` holds its diagnostics. */
export function compileStrict(dir: string, files: readonly string[]): { code: number | null; out: string } {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
      paths: { kdyn: [DECLARATIONS] },
    },
    files,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
