// Lazy built-ins, a build step (scripts/build.mjs applies it to every dist/cli file; plain JS because
// the build runs it before anything is compiled). Built-in modules that cost milliseconds to load and
// that most runs never touch (exec plugins' child_process, crypto for temp-file names, fs/promises, ...):
// each `require("<built-in>")` esbuild emitted is rewritten to `__kdynLazy("<built-in>")`, a Proxy
// that requires the module on first property access. Measured unloaded: crypto ~3.5 ms,
// child_process ~3 ms, fs/promises ~1.3 ms, tty ~2.7 ms. (Neither Node nor esbuild offers this.)
// What it relies on, and what breaks if that changes (docs/design/startup.md):
// - esbuild's CommonJS output spells these imports exactly `require("id")` and reads them by
//   property (`(0, import_x.spawn)(...)`): a new spelling leaves them unmatched, so they load
//   eagerly again (slower, still correct). A namespace or default import goes through esbuild's
//   __toESM, which lists the proxy's keys at once and so loads the module: import names only.
// - The proxy stands in for the module object: a function read from it is Node's own, but code that
//   compares module objects (`m === require('crypto')`) or assigns to a built-in's properties sees
//   the proxy. If Node starts loading a listed built-in during its own bootstrap, or a new built-in
//   becomes costly, only the list is out of date (a speed matter, not a failure).
// test/e2e/startup-mechanisms.test.ts fails if bin.js still requires a listed built-in directly,
// or if `kdyn get` loads child_process or fs/promises; the exec-plugin e2e tests use the proxy for real.
const LAZY_BUILTINS = /\brequire\("((?:node:)?(?:child_process|crypto|zlib|readline|tty|dns|worker_threads|fs\/promises|v8|vm|perf_hooks))"\)/g;
const LAZY_PRELUDE =
  'var __kdynLazy=(id)=>{let m;const l=()=>m??=require(id);return new Proxy({},{get:(_,k)=>l()[k],has:(_,k)=>k in l(),' +
  'ownKeys:()=>Reflect.ownKeys(l()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(l(),k);' +
  'return d&&{...d,configurable:!0}}})};';

/** `code` (one CommonJS file of dist/cli) with each listed built-in required on first use. */
export function makeBuiltinsLazy(code) {
  const out = code.replace(LAZY_BUILTINS, (_, id) => `__kdynLazy("${id}")`);
  return out.includes('__kdynLazy(') ? LAZY_PRELUDE + out : out;
}
