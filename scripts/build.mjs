// Builds kdyn with esbuild.
// 1. dist/cli: the CLI as one CommonJS file plus one file per heavy package (see buildCli below).
// 2. dist/lib: the library entry point (src/index.ts), dependencies left external.
// 3. build/: every .ts file of src, test, bench and scripts transpiled 1:1 (no bundling),
//    so tests can import internal modules and the local API server can run.
// Outputs are overwritten in place (never wiped first), so parallel builds do not pull files from
// under a running test; a failing file is reported and the rest still built.
import { build, transform } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync, readdirSync, statSync, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledPackages, renderNotices, CLI_INPUTS_PATH, NOTICES_PATH } from './bundled-packages.mjs';
import { makeBuiltinsLazy } from '../src/startup/lazy-builtins.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const started = performance.now();

// __KDYN_BUILD_ID__: a digest of every source file (path and bytes), so what a build keeps on disk
// for itself (explain's derived parts and explanations) is never read by another build, released or not.
const define = { __KDYN_VERSION__: JSON.stringify(pkg.version), __KDYN_BUILD_ID__: JSON.stringify(sourceDigest(join(root, 'src'))) };

function sourceDigest(dir) {
  const hash = createHash('sha256');
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const f = join(d, name);
      if (statSync(f).isDirectory()) walk(f);
      else hash.update(`${relative(root, f)}\0`).update(readFileSync(f)).update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 12);
}

// yargs' cliui pulls in string-width, whose import builds an Intl.Segmenter (~60 ms);
// kdyn's help text is ASCII, so a plain length is exact.
const stringWidthShim = {
  name: 'string-width-shim',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, () => ({ path: join(root, 'scripts/string-width-shim.mjs') }));
  },
};

// Lazy built-ins (src/startup/lazy-builtins.mjs): in each dist/cli file, the built-ins that cost
// milliseconds to load are required on first use. docs/design/startup.md lists what this relies on.

// Packages built into their own files (dist/cli/lib/<name>.js), required by bin.js where imported.
const SATELLITES = { yargs: 'yargs', 'js-yaml': 'js-yaml', '@kubernetes/client-node': 'client-node', 'env-paths': 'env-paths' };
const DEFAULT_IMPORTED = new Set(['yargs', 'env-paths']);

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
    target: 'node22',
    packages: 'external',
    define,
    logLevel: 'warning',
  }).catch((e) => failures.push(`dist/lib: ${e.message.split('\n')[0]}`));
}

// Transpile-only pass for tests, benchmarks, scripts and the local API server.
let count = 0;
const written = new Set();
for (const dir of ['src', 'test', 'bench', 'scripts']) {
  for (const file of walk(join(root, dir))) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = join(root, 'build', relative(root, file)).replace(/\.ts$/, '.js');
    let code;
    try {
      ({ code } = await transform(readFileSync(file, 'utf8'), {
        loader: 'ts', format: 'esm', target: 'node22', define, sourcefile: file, sourcemap: 'inline',
      }));
    } catch (e) {
      failures.push(`${relative(root, file)}: ${e.message.split('\n')[0]}`);
      continue;
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
    written.add(out);
    count++;
  }
}
// A source file renamed or removed leaves its old output behind, and the test runner would still run
// a stale build/test/**/*.test.js: remove every output of this pass that no source produced now.
if (failures.length === 0) {
  for (const dir of ['src', 'test', 'bench', 'scripts']) {
    for (const file of walk(join(root, 'build', dir))) {
      if (file.endsWith('.js') && !written.has(file)) rmSync(file, { force: true });
    }
  }
}
// --declarations (prepack and npm test): the library's .d.ts files, dist/types (package.json "types").
// Emptied first: tsc never removes the .d.ts of a module that no longer exists, and npm would pack it.
if (process.argv.includes('--declarations')) {
  rmSync(join(root, 'dist/types'), { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.lib.json'], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) failures.push('dist/types: tsc -p tsconfig.lib.json failed');
}
if (failures.length) {
  console.error(`build failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!quiet) console.error(`build: dist/ and ${count} transpiled files in ${Math.round(performance.now() - started)} ms`);

// dist/cli: ONE CommonJS file for kdyn's own code (bin.js), plus a file per heavy package that only
// some runs need (dist/cli/lib/: yargs for --help, js-yaml for -o yaml, client-node for auth-provider
// users, env-paths), required from bin.js where the source imports them.
// - One file, not esbuild's split chunks: `kdyn get` used to load 16 chunk files; each costs a read,
//   a compile and CommonJS interop between chunks (measured: the single file is ~3 ms faster per run).
//   Modules reached only through dynamic import() stay lazily initialised inside the file, and
//   bin/kdyn keeps a V8 code cache per command, so a command compiles only what it runs.
// - CommonJS, not ESM: the code cache compiles CommonJS files (Module.prototype._compile), and a
//   CommonJS entry starts with ~4-5 ms less CPU than an ES module on Node 22 and 24 (~8 ms on Node 20).
// build/cli-meta.json is esbuild's metafile: the start-up test reads it to check that bin.js holds
// none of the heavy packages. dist/THIRD_PARTY_NOTICES.md: the bundled packages' license texts.

async function buildCli() {
  const outdir = join(root, 'dist/cli');
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    minify: true,
    legalComments: 'none',
    // Bundled ESM dependencies (yargs) use import.meta.url; each CommonJS file defines this instead.
    define: { ...define, 'import.meta.url': '__kdynMetaUrl' },
    // import() of a satellite becomes a require(): bin/kdyn compiles the bundle with vm.Script,
    // which has no dynamic-import callback.
    supported: { 'dynamic-import': false },
    write: false,
    logLevel: 'warning',
  };
  const satellites = {
    name: 'satellites',
    setup(b) {
      const names = Object.keys(SATELLITES).map((n) => n.replace(/[/.]/g, '\\$&'));
      b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (a) => ({ path: `./lib/${SATELLITES[a.path]}.js`, external: true }));
    },
  };
  const main = await build({ ...common, entryPoints: { bin: 'src/cli/bin.ts' }, outdir: 'dist/cli', plugins: [satellites], metafile: true });
  // kdyn's sources are Node ESM, so esbuild reads a default import of a required file as its
  // module.exports (Node's rule): a satellite of a package kdyn imports by default exports that value.
  const satelliteEntries = {
    name: 'satellite-entries',
    setup(b) {
      b.onResolve({ filter: /^satellite:/ }, (a) => ({ path: a.path.slice('satellite:'.length), namespace: 'satellite' }));
      b.onLoad({ filter: /.*/, namespace: 'satellite' }, (a) => ({
        contents: DEFAULT_IMPORTED.has(a.path) ? `module.exports = require(${JSON.stringify(a.path)}).default;` : `module.exports = require(${JSON.stringify(a.path)});`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
  const libs = await build({
    ...common,
    entryPoints: Object.fromEntries(Object.entries(SATELLITES).map(([pkg, name]) => [`lib/${name}`, `satellite:${pkg}`])),
    outdir: 'dist/cli',
    plugins: [satelliteEntries, stringWidthShim],
    metafile: true,
  });
  // Second entry point: the background writer of kubectl's discovery layout (src/discovery/layout-writer.ts),
  // which kdyn spawns with `node dist/cli/layout-writer.js` (beside bin.js, whose directory
  // startLayoutWriter() looks in): small, and bundled on its own.
  const writer = existsSync(join(root, 'src/discovery/layout-writer.ts'))
    ? await build({ ...common, entryPoints: { 'layout-writer': 'src/discovery/layout-writer.ts' }, outdir: 'dist/cli', metafile: true })
    : { outputFiles: [], metafile: { inputs: {} } };
  // The first file of every run (src/startup/start.ts): the code cache, then require('./bin.js'), which
  // stays a require of the file beside it. It gets the command table's names (src/cli/spec.ts) for the
  // code cache's per-command entries, so bin/kdyn keeps no copy of them.
  const start = await build({
    ...common,
    entryPoints: { start: 'src/startup/start.ts' },
    outdir: 'dist/cli',
    define: { ...common.define, __KDYN_COMMANDS__: JSON.stringify(await commandNames()) },
    plugins: [{ name: 'bin-beside', setup: (b) => b.onResolve({ filter: /^\.\/bin\.js$/ }, (a) => ({ path: a.path, external: true })) }],
    metafile: true,
  });
  mkdirSync(join(outdir, 'lib'), { recursive: true });
  writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
  // Satellites first, the entries last (bin.js, then start.js, which requires it), each renamed into
  // place: a kdyn started mid-build never reads a half-written file, or a bin.js whose satellites are missing.
  const files = [...libs.outputFiles, ...writer.outputFiles, ...main.outputFiles, ...start.outputFiles].filter((f) => f.path.endsWith('.js'));
  for (const file of files) {
    let code = makeBuiltinsLazy(file.text);
    if (code.includes('__kdynMetaUrl')) code = `var __kdynMetaUrl=require("url").pathToFileURL(__filename).href;${code}`;
    writeFileSync(`${file.path}.${process.pid}.tmp`, code);
    renameSync(`${file.path}.${process.pid}.tmp`, file.path);
  }
  mkdirSync(join(root, 'build'), { recursive: true });
  writeFileSync(join(root, 'build/cli-meta.json'), JSON.stringify(main.metafile));
  // The license texts of the packages bundled above (legalComments: 'none' drops their comments),
  // shipped as dist/THIRD_PARTY_NOTICES.md; the input list lets the tests and the bundled-package
  // audit (scripts/audit-bundled.mjs) find the same packages.
  const inputs = [...new Set([main, libs, writer, start].flatMap((r) => Object.keys(r.metafile.inputs)))].sort();
  writeFileSync(join(root, CLI_INPUTS_PATH), `${JSON.stringify(inputs, null, 1)}\n`);
  writeFileSync(join(root, NOTICES_PATH), renderNotices(pkg.version, bundledPackages(root, inputs)));
}

/** The names of the commands in src/cli/spec.ts's table, sorted (the table alone: commands stay external). */
async function commandNames() {
  const spec = await build({
    absWorkingDir: root,
    entryPoints: ['src/cli/spec.ts'],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'warning',
    plugins: [{ name: 'commands-external', setup: (b) => b.onResolve({ filter: /^\.\/commands\// }, (a) => ({ path: a.path, external: true })) }],
  });
  const { COMMANDS } = await import(`data:text/javascript;base64,${Buffer.from(spec.outputFiles[0].text).toString('base64')}`);
  return COMMANDS.map((c) => c.name).sort();
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
