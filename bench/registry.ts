/**
 * Finds the cases: every module in bench/cases/ (as built to build/bench/cases/*.js) that exports
 * `cases: BenchCase[]` (and optionally `order`, default 50: files run by order, then by name).
 * To add cases, drop a file there; nothing else to edit. A case marked
 * `stub` (the harness's stand-ins for other areas' targets) is replaced, in place, by a case of the
 * same name from any other file.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchCase } from './types.js';

const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'cases');

export interface Registry {
  cases: BenchCase[];
  /** Problems found while loading (a file that failed to import, a duplicate name); printed, not fatal. */
  warnings: string[];
}

export async function loadCases(dir = CASES_DIR): Promise<Registry> {
  const warnings: string[] = [];
  const modules: Array<{ file: string; cases: BenchCase[]; order: number }> = [];
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.js') && !f.endsWith('.test.js')).sort();
  } catch {
    warnings.push(`no case directory at ${dir}`);
  }
  for (const file of files) {
    try {
      const mod = (await import(pathToFileURL(join(dir, file)).href)) as { cases?: unknown; order?: unknown };
      if (!Array.isArray(mod.cases)) continue; // a helper module, not a case file
      modules.push({ file, cases: mod.cases as BenchCase[], order: typeof mod.order === 'number' ? mod.order : 50 });
    } catch (e) {
      warnings.push(`bench/cases/${file}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  modules.sort((a, b) => a.order - b.order || a.file.localeCompare(b.file));
  return { cases: mergeCases(modules, warnings), warnings };
}

/** Pure: merges per-file case lists, letting a real case replace a stub of the same name. */
export function mergeCases(modules: ReadonlyArray<{ file: string; cases: BenchCase[] }>, warnings: string[] = []): BenchCase[] {
  const out: BenchCase[] = [];
  const where = new Map<string, { index: number; file: string; stub: boolean }>();
  for (const { file, cases } of modules) {
    for (const c of cases) {
      const seen = where.get(c.name);
      if (!seen) {
        where.set(c.name, { index: out.length, file, stub: !!c.stub });
        out.push(c);
      } else if (seen.stub && !c.stub) {
        out[seen.index] = c;
        where.set(c.name, { index: seen.index, file, stub: false });
      } else if (!c.stub) {
        warnings.push(`case "${c.name}" is defined in ${seen.file} and ${file}; using ${seen.file}`);
      }
    }
  }
  return out;
}
