/** Start-up cases (issue 2): how much kdyn adds to node's own start-up. */
import { readStartupPath } from '../startup-file.js';
import { ROOT } from '../tools.js';
import type { BenchCase } from '../types.js';

/** Files run by `order` (see bench/registry.ts). */
export const order = 10;

export const cases: BenchCase[] = [
  {
    name: 'version',
    description: 'kdyn --version vs node -e 0 (start-up budget)',
    issue: 'issue 2',
    server: null,
    target: { kind: 'ratio', max: 1.3 },
    kdyn: () => ['--version'],
    baseline: { kind: 'node', args: ['-e', '0'] },
  },
  {
    name: 'help',
    description: 'kdyn --help (yargs-rendered) vs node -e 0 (informational)',
    issue: 'issue 2',
    server: null,
    target: { kind: 'ratio', max: 2.0 },
    kdyn: () => ['--help'],
    baseline: { kind: 'node', args: ['-e', '0'] },
  },
  {
    name: 'version-server',
    description: 'kdyn version vs kubectl version (one GET /version over TLS)',
    issue: 'issue 2',
    server: { seed: 'empty' },
    target: { kind: 'ratio', max: 1.0 },
    kdyn: () => ['version'],
    baseline: { kind: 'kubectl', args: () => ['version'] },
  },
  {
    // All of kdyn's own code is one file (modules behind import() initialise lazily; bin/kdyn keeps a
    // V8 code cache per command), so its size is the budget: the heavy packages are satellites.
    // 256 KiB until `apply` (src/apply, ~25 KB minified) joined; every command is in this file.
    name: 'startup-file-size',
    description: 'size of the code every command loads (dist/cli/bin.js and its static requires)',
    issue: 'issue 2',
    server: null,
    metric: 'size',
    target: { kind: 'size', maxKiB: 288 },
    baseline: { kind: 'none' },
    runs: 1,
    custom: async () => readStartupPath(ROOT).bytes / 1024,
  },
];
