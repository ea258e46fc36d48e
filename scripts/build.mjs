// Builds kdyn with esbuild.
// 1. dist/cli: the CLI as one ESM bundle, each command in its own lazily loaded chunk
//    (start-up parses only main.js and the chunk of the command that runs).
// 2. dist/lib: the library entry point (src/index.ts), dependencies left external.
// 3. build/: every .ts file of src, test, bench and scripts transpiled 1:1 (no bundling),
//    so tests can import internal modules and the local API server can run.
// Outputs are overwritten in place (never wiped first), so parallel builds do not pull files from
// under a running test; a failing file is reported and the rest still built.
import { build, transform } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = performance.now();

const define = { __KDYN_VERSION__: JSON.stringify(pkg.version) };

// yargs' cliui pulls in string-width, whose import builds an Intl.Segmenter (~60 ms);
// kdyn's help text is ASCII, so a plain length is exact.
const stringWidthShim = {
  name: 'string-width-shim',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, () => ({ path: join(root, 'scripts/string-width-shim.mjs') }));
  },
};

const failures = [];
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/bin.ts'],
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define,
  plugins: [stringWidthShim],
  // CommonJS dependencies (cli-table3) call require() for Node built-ins.
  banner: { js: "import{createRequire as __kdynCR}from'node:module';const require=__kdynCR(import.meta.url);" },
  logLevel: 'warning',
}).catch((e) => failures.push(`dist/cli: ${e.message.split('\n')[0]}`));

if (existsSync(join(root, 'src/index.ts'))) {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/index.ts'],
    outdir: 'dist/lib',
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    define,
    logLevel: 'warning',
  }).catch((e) => failures.push(`dist/lib: ${e.message.split('\n')[0]}`));
}

// Transpile-only pass for tests, benchmarks, scripts and the local API server.
let count = 0;
for (const dir of ['src', 'test', 'bench', 'scripts']) {
  for (const file of walk(join(root, dir))) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = join(root, 'build', relative(root, file)).replace(/\.ts$/, '.js');
    let code;
    try {
      ({ code } = await transform(readFileSync(file, 'utf8'), {
        loader: 'ts', format: 'esm', target: 'node20', define, sourcefile: file, sourcemap: 'inline',
      }));
    } catch (e) {
      failures.push(`${relative(root, file)}: ${e.message.split('\n')[0]}`);
      continue;
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
    count++;
  }
}
if (failures.length) {
  console.error(`build failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!quiet) console.error(`build: dist/ and ${count} transpiled files in ${Math.round(performance.now() - started)} ms`);

function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}
