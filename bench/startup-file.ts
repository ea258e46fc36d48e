/**
 * The code every kdyn command loads: dist/cli/bin.js and what it statically requires, read from
 * esbuild's metafile of the dist/cli build (build/cli-meta.json, written by scripts/build.mjs).
 * test/e2e/startup.test.ts checks what is in it; bench/cases/startup.ts measures its size.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Metafile {
  outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown>; bytes: number }>;
}

export interface StartupPath {
  /** The output files on the static path from dist/cli/bin.js (repository-relative). */
  outputs: string[];
  /** The source files bundled into them. */
  inputs: string[];
  /** Their total size. */
  bytes: number;
}

export function readStartupPath(root: string): StartupPath {
  const meta = JSON.parse(readFileSync(join(root, 'build/cli-meta.json'), 'utf8')) as Metafile;
  const seen = new Set<string>();
  const walk = (out: string) => {
    if (seen.has(out) || !meta.outputs[out]) return;
    seen.add(out);
    for (const i of meta.outputs[out]!.imports) if (i.kind === 'import-statement') walk(i.path);
  };
  walk('dist/cli/bin.js');
  const outputs = [...seen];
  return {
    outputs,
    inputs: outputs.flatMap((o) => Object.keys(meta.outputs[o]!.inputs)),
    bytes: outputs.reduce((n, o) => n + meta.outputs[o]!.bytes, 0),
  };
}
