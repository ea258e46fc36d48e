// Builds kdyn with esbuild.
// 1. dist/cli: the CLI bundle, each command in its own lazily loaded chunk (start-up parses only
//    bin.js and the chunk of the command that runs), emitted as CommonJS (see buildCli below).
// 2. dist/lib: the library entry point (src/index.ts), dependencies left external.
// 3. build/: every .ts file of src, test, bench and scripts transpiled 1:1 (no bundling),
//    so tests can import internal modules and the local API server can run.
// Outputs are overwritten in place (never wiped first), so parallel builds do not pull files from
// under a running test; a failing file is reported and the rest still built.
import { build, transform } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, readdirSync, statSync, existsSync, renameSync, rmSync } from 'node:fs';
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

// Built-in modules that cost milliseconds to load and that most runs never touch (exec plugins'
// child_process, crypto for temp-file names, fs/promises, ...): a chunk that imports one gets a
// proxy that requires the module on first property access. Measured unloaded: crypto ~3.5 ms,
// child_process ~3 ms, fs/promises ~1.3 ms, tty ~2.7 ms.
const LAZY_BUILTINS = /\brequire\("((?:node:)?(?:child_process|crypto|zlib|readline|tty|dns|worker_threads|fs\/promises|v8|vm|perf_hooks))"\)/g;
const LAZY_PRELUDE =
  'var __kdynLazy=(id)=>{let m;const l=()=>m??=require(id);return new Proxy({},{get:(_,k)=>l()[k],has:(_,k)=>k in l(),' +
  'ownKeys:()=>Reflect.ownKeys(l()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(l(),k);' +
  'return d&&{...d,configurable:!0}}})};';

const failures = [];
await buildCli().catch((e) => failures.push(`dist/cli: ${e.message.split('\n')[0]}`));

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
// --declarations (prepare and npm test): the library's .d.ts files, dist/types (package.json "types").
if (process.argv.includes('--declarations')) {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.lib.json'], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) failures.push('dist/types: tsc -p tsconfig.lib.json failed');
}
if (failures.length) {
  console.error(`build failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!quiet) console.error(`build: dist/ and ${count} transpiled files in ${Math.round(performance.now() - started)} ms`);

// dist/cli: esbuild splits only in ESM, but Node 20 starts an ESM entry ~8 ms slower than a CommonJS
// one (the ESM loader's set-up; measured with bench/, `node x.mjs` vs `node x.cjs`). So the CLI is
// bundled and split as ESM, then each output file is converted to CommonJS (dynamic import() becomes
// a lazy require()), and dist/cli/package.json marks the folder "commonjs". bin/kdyn (CommonJS via
// bin/package.json) requires dist/cli/bin.js. build/cli-meta.json is esbuild's metafile: the
// start-up test reads it to check that bin.js does not statically reach heavy packages.
async function buildCli() {
  const outdir = join(root, 'dist/cli');
  const result = await build({
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
    // Bundled ESM dependencies (yargs) use import.meta.url; each CommonJS file defines this instead.
    define: { ...define, 'import.meta.url': '__kdynMetaUrl' },
    plugins: [stringWidthShim],
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outdir, { recursive: true });
  writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
  // Chunks first, the entry last, each renamed into place: a kdyn started mid-build never reads a
  // half-written file or a bin.js whose chunks are missing.
  const files = result.outputFiles.filter((f) => f.path.endsWith('.js'));
  files.sort((a, b) => Number(a.path.endsWith('/bin.js')) - Number(b.path.endsWith('/bin.js')));
  for (const file of files) {
    let { code } = await transform(file.text, {
      loader: 'js', format: 'cjs', platform: 'node', target: 'node20', minify: true, legalComments: 'none',
      supported: { 'dynamic-import': false },
    });
    code = code.replace(LAZY_BUILTINS, (_, id) => `__kdynLazy("${id}")`);
    if (code.includes('__kdynLazy(')) code = LAZY_PRELUDE + code;
    if (code.includes('__kdynMetaUrl')) code = `var __kdynMetaUrl=require("url").pathToFileURL(__filename).href;${code}`;
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(`${file.path}.${process.pid}.tmp`, code);
    renameSync(`${file.path}.${process.pid}.tmp`, file.path);
  }
  // Second entry point: the background writer of kubectl's discovery layout (src/cli/layout-writer.ts),
  // which kdyn spawns with `node dist/cli/layout-writer.js`. Bundled on its own, as CommonJS: as an
  // entry of the split build above it would pull the discovery modules it shares with the CLI into a
  // new shared chunk, one more file for every kdyn run to load.
  if (existsSync(join(root, 'src/cli/layout-writer.ts'))) {
    const writer = await build({
      absWorkingDir: root, entryPoints: ['src/cli/layout-writer.ts'], outfile: 'dist/cli/layout-writer.js', bundle: true,
      format: 'cjs', platform: 'node', target: 'node20', minify: true, legalComments: 'none', define, write: false, logLevel: 'warning',
    });
    const out = join(outdir, 'layout-writer.js');
    writeFileSync(`${out}.${process.pid}.tmp`, writer.outputFiles[0].text);
    renameSync(`${out}.${process.pid}.tmp`, out);
  }
  mkdirSync(join(root, 'build'), { recursive: true });
  writeFileSync(join(root, 'build/cli-meta.json'), JSON.stringify(result.metafile));
  // Chunks of earlier builds (hashed names) are removed once they are 10 minutes old, so a kdyn
  // process started before this build can still load the command chunk it asks for.
  const current = new Set(files.map((f) => f.path));
  const chunkDir = join(outdir, 'chunks');
  for (const name of existsSync(chunkDir) ? readdirSync(chunkDir) : []) {
    const p = join(chunkDir, name);
    if (!current.has(p) && Date.now() - statSync(p).mtimeMs > 10 * 60_000) rmSync(p, { force: true });
  }
}

function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}
