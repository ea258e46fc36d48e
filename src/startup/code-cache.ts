/**
 * The code cache for dist/cli: compiled bytecode kept between runs, so a command does not compile the
 * bundle afresh each time (saves ~10 ms on a command that talks to a server). Installed by ./start.ts
 * before the bundle loads; docs/design/startup.md has the measurements and the Node internals this
 * relies on. Two implementations:
 * - the hand-made V8 code cache (the default): every CommonJS file of dist/cli is compiled through
 *   vm.Script with the bytecode V8 made for it on an earlier run, written at exit, so an entry holds
 *   the functions the command compiled, not only the file's top level;
 * - Node's own compile cache (module.enableCompileCache): with KDYN_CODE_CACHE=node.
 *   Its entry is made when the file is compiled (the functions compiled later are not in it), and
 *   it measured slower for `kdyn get`; kept as an opt-in so that can be measured again.
 * Both live in the user's own cache directory ($XDG_CACHE_HOME or ~/.cache) and only in one no other
 * user can write (`privateDir`): kdyn runs the bytes it finds there. KDYN_NO_CODE_CACHE=1 turns both off.
 * Entries are kept per command: `kdyn get` and `kdyn version` run different parts of the one bin.js.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { Script } from 'node:vm';

/** 'KDC1': the header's magic. */
export const ENTRY_MAGIC = 0x3143444b;
/** magic, CRC-32 and length of V8's bytes, each a little-endian uint32. */
export const ENTRY_HEADER = 12;
/** Smaller files compile faster than an entry can be found and checked (measured: caching every file made `version --client` ~2 ms slower). */
const MIN_CACHED_SOURCE = 16384;

type Crc32 = (data: Uint8Array, value: number) => number;

// require, not an ES import: esbuild's default-import interop would copy the module's properties
// first, on every run; and this file runs only as CommonJS (dist/cli/start.js).
const loader = (): LoaderInternals & { enableCompileCache(dir: string): unknown } => require('node:module');

/** The parts of Node's CommonJS loader the hand-made cache uses: internal or legacy, not in @types/node. */
interface LoaderInternals {
  new (id: string, parent?: unknown): ModuleInternals;
  prototype: { _compile(content: string, filename: string, ...rest: unknown[]): unknown };
  wrap(content: string): string;
  _cache: Record<string, ModuleInternals | undefined>;
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
}
interface ModuleInternals {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
  require(id: string): unknown;
  _compile(content: string, filename: string): unknown;
}

/**
 * Installs the code cache for the files under `root` (dist/cli), for the command named first among
 * `commands` in argv (else 'other'). Does nothing where no private cache directory can be had.
 */
export function useCodeCache(root: string, commands: readonly string[], env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): void {
  // A relative XDG_CACHE_HOME is ignored, as the XDG spec says (it would write into the cwd).
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : '';
  const base = xdg || (env.HOME && isAbsolute(env.HOME) ? join(env.HOME, '.cache') : '');
  if (!base || env.KDYN_NO_CODE_CACHE) return;
  const profile = argv.slice(2).find((a) => commands.includes(a)) ?? 'other';
  if (env.KDYN_CODE_CACHE === 'node') {
    // Node's entries go into a subdirectory Node makes inside this one (mkdir -p, mode 0777 minus
    // the umask, no owner checks): private because this one is, and no one else can reach into it.
    if (privateDir(base, ['kdyn-compile-cache', profile], true) === 'private') loader().enableCompileCache(join(base, 'kdyn-compile-cache', profile));
    return;
  }
  const crc32 = crc32Function(env);
  const names = ['kdyn-code-cache', process.version];
  // 'missing' (the first run): nothing to read, the directories are made at exit.
  const state = privateDir(base, names, false);
  if (state === 'unsafe') return;
  installCompile(root, join(base, ...names), profile, state === 'private', crc32, () => state === 'private' || privateDir(base, names, true) === 'private');
}

/**
 * Replaces Module.prototype._compile for the files under `root`: each is compiled by vm.Script with
 * its entry from `dir` (if `read`), and entries missing or rejected are written at exit, once
 * `writable()` says the directory is private.
 */
function installCompile(root: string, dir: string, profile: string, read: boolean, crc32: Crc32, writable: () => boolean): void {
  const Loader = loader();
  const uid = process.geteuid!();
  const prefix = root + sep;
  const compile = Loader.prototype._compile;
  const pending: Array<[Script, string]> = [];
  Loader.prototype._compile = function (this: ModuleInternals, content: string, filename: string, ...rest: unknown[]) {
    // Other files go to Node's own, with every argument it passed (Node 22 added a third, the format).
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename, ...rest);
    // Keyed by the file's identity (inode, size, mtime): V8 itself only checks the source length, so
    // a rebuilt file of the same length must never meet the bytecode of its predecessor.
    let cacheFile: string | undefined;
    let cachedData: Buffer | undefined;
    if (content.length >= MIN_CACHED_SOURCE) {
      try {
        const st = statSync(filename);
        const name = filename.slice(prefix.length).replace(/[\\/]/g, '_');
        cacheFile = join(dir, `${name}@${profile}.${st.ino}-${st.size}-${Math.trunc(st.mtimeMs)}`);
        if (read) cachedData = readEntry(cacheFile, uid, crc32);
      } catch {
        // the bundle file is gone: compiled without an entry
      }
    }
    const script = new Script(Loader.wrap(content), { filename, cachedData });
    if (cacheFile && (!cachedData || script.cachedDataRejected)) pending.push([script, cacheFile]);
    const mod = this;
    const here = dirname(filename);
    const req = (id: string): unknown => {
      // The bundle's own files (`./lib/x.js`) straight from their path: Node's resolution (stat,
      // realpath, package.json scope) costs ~0.1 ms a file.
      if (id.startsWith('./')) {
        const file = join(here, id);
        const hit = Loader._cache[file];
        if (hit) return hit.exports;
        if (file.startsWith(prefix) && file.endsWith('.js')) return loadOwn(Loader, file, mod);
      }
      return mod.require(id);
    };
    req.resolve = (request: string, options?: unknown) => Loader._resolveFilename(request, mod, false, options);
    req.main = require.main;
    req.cache = Loader._cache;
    return (script.runInThisContext() as (...a: unknown[]) => unknown).call(mod.exports, mod.exports, req, mod, filename, here);
  };
  process.once('exit', () => {
    try {
      if (pending.length === 0 || !writable()) return;
      writeEntries(dir, pending, crc32);
    } catch {
      // an unwritable cache only costs the speed-up
    }
  });
}

/** Loads one of the bundle's own files as Node would (a Module in Module._cache), through _compile. */
function loadOwn(Loader: LoaderInternals, file: string, parent: ModuleInternals): unknown {
  const m = new Loader(file, parent);
  m.filename = file;
  m.paths = parent.paths;
  Loader._cache[file] = m;
  let ok = false;
  try {
    m._compile(readFileSync(file, 'utf8'), file);
    ok = true;
  } finally {
    if (!ok) delete Loader._cache[file];
  }
  m.loaded = true;
  return m.exports;
}

/** Writes each script's entry (header + V8's bytes, mode 0600, renamed into place) and removes the entries it replaces. */
function writeEntries(dir: string, pending: ReadonlyArray<readonly [Script, string]>, crc32: Crc32): void {
  const existing = readdirSync(dir);
  for (const [script, file] of pending) {
    const name = basename(file);
    const stem = name.slice(0, name.lastIndexOf('.') + 1);
    for (const old of existing) if (old.startsWith(stem) && old !== name) rmSync(join(dir, old), { force: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, entryBytes(script.createCachedData(), crc32), { mode: 0o600 });
    renameSync(tmp, file);
  }
}

/** A code cache entry: the header (magic, CRC-32, length) and V8's bytes. */
export function entryBytes(data: Buffer, crc32: Crc32): Buffer {
  const header = Buffer.alloc(ENTRY_HEADER);
  header.writeUInt32LE(ENTRY_MAGIC, 0);
  header.writeUInt32LE(crc32(data, 0) >>> 0, 4);
  header.writeUInt32LE(data.length, 8);
  return Buffer.concat([header, data]);
}

/**
 * Which directories kdyn trusts with code, for the V8 code cache and Node's compile cache.
 * Another user who can put a file in the cache directory chooses what kdyn runs (as root, if root runs
 * kdyn), and the entry's CRC proves nothing: anyone can compute it. So `base/names...` is used only
 * when no one but the effective user (and root) can change what it holds:
 * - base ($XDG_CACHE_HOME or ~/.cache) is a directory, not a symlink (lstat), owned by the effective
 *   user or root, and not writable by group or others, unless it has the sticky bit as /tmp has
 *   (others may add files there but cannot rename or remove ours).
 * - Each directory below it is kdyn's own: a directory, not a symlink, owned by the effective user,
 *   mode 0700 exactly, as kdyn makes it (a umask only takes bits away). In a sticky base this
 *   is what keeps others out: another user may create `kdyn-code-cache` first, and then it is theirs
 *   and not used. With `create`, a missing one is made with mkdir 0700, one level at a time (never
 *   mkdir -p: it loops forever under /proc, and would make ancestors nobody checked), then checked as
 *   if it had been there; base is made only if its parent exists. A directory that fails is left as it
 *   is: chmod would bless what others may have put there.
 * - The directories above base (/home, the parent of $XDG_CACHE_HOME) are not checked. OpenSSH
 *   (StrictModes) walks up to /, Go's build cache checks nothing; whoever can write the parent of a
 *   user's home can already replace the home itself (shell start-up files, ~/.kube/config), so the
 *   check stops where kdyn's choice of directory starts.
 * Everything fails safe: a directory that is not private costs the speed-up (~10 ms), never an error.
 * Returns 'private', 'missing' (a part does not exist; only without `create`) or 'unsafe'.
 */
export function privateDir(base: string, names: readonly string[], create: boolean): 'private' | 'missing' | 'unsafe' {
  if (typeof process.geteuid !== 'function') return 'unsafe'; // Windows: no owners to check
  const uid = process.geteuid();
  let dir = base;
  try {
    for (let i = 0; i <= names.length; i++) {
      if (i > 0) dir = join(dir, names[i - 1]!);
      let st = lstatSync(dir, { throwIfNoEntry: false });
      if (!st) {
        if (!create) return 'missing';
        try {
          mkdirSync(dir, 0o700);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // EEXIST: another kdyn made it meanwhile, checked below
        }
        st = lstatSync(dir);
      }
      const ok = i === 0
        ? (st.uid === uid || st.uid === 0) && ((st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0)
        : st.uid === uid && (st.mode & 0o777) === 0o700;
      if (!st.isDirectory() || !ok) return 'unsafe';
    }
    return 'private';
  } catch {
    return 'unsafe'; // ENOTDIR, EACCES, ENOENT from mkdir (a missing parent of base, /proc...)
  }
}

/**
 * V8's bytes of the entry `file`, or undefined (missing, or rejected: rewritten at exit). In a private
 * directory only kdyn writes entries (0600); a symlink (O_NOFOLLOW), another owner or any access for
 * group or others means something else put it there, and it is not used.
 */
function readEntry(file: string, uid: number, crc32: Crc32): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o077) !== 0) return undefined;
    return checkedEntry(readFileSync(fd), crc32);
  } catch {
    return undefined; // first run
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** V8's bytes of a code cache entry whose header and checksum are right; else undefined (rewritten). */
export function checkedEntry(entry: Buffer, crc32: Crc32): Buffer | undefined {
  if (entry.length <= ENTRY_HEADER || entry.readUInt32LE(0) !== ENTRY_MAGIC) return undefined;
  const data = entry.subarray(ENTRY_HEADER);
  if (entry.readUInt32LE(8) !== data.length || entry.readUInt32LE(4) !== crc32(data, 0) >>> 0) return undefined;
  return data;
}

/**
 * zlib's crc32 without loading node:zlib (~1.5 ms): the internal binding public zlib.crc32 calls,
 * ~0.1 ms for a 90 KB entry. Through the public module where process.binding would print a
 * deprecation warning (--pending-deprecation), or where the binding has no crc32.
 */
export function crc32Function(env: NodeJS.ProcessEnv): Crc32 {
  const pending = process.execArgv.includes('--pending-deprecation') || env.NODE_PENDING_DEPRECATION === '1' || /--pending-deprecation/.test(env.NODE_OPTIONS ?? '');
  try {
    if (!pending) {
      const f = (process as unknown as { binding(name: string): { crc32?: unknown } }).binding('zlib').crc32;
      if (typeof f === 'function') return f as Crc32;
    }
  } catch {
    // not available: the public module below
  }
  // require, not import: node:zlib is loaded only here, where the binding is not used.
  return (require('node:zlib') as typeof import('node:zlib')).crc32;
}
