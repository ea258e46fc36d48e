/**
 * kdyn runs the bytecode it finds in its code cache (src/startup/code-cache.ts), so it must use only a
 * cache directory no other user can write (issue 20, item 3). Each test plants a real attack entry: V8 bytecode made from
 * another bundle of the same length (V8 checks only the length) that prints `PLANTED Version ` instead
 * of `Client Version:`, with a valid header and CRC, under the name the real bundle's entry has. The
 * control shows that kdyn runs it from a private directory (only the owner could have put it there);
 * every other test shows that it never runs from a directory someone else could write.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { repoRoot } from '../support/cli.js';

const root = repoRoot();
const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;
const GENUINE = 'Client Version: v0.1.0\n';
const PLANTED = 'PLANTED Version v0.1.0\n';

let scratch: string;
/** A copy of bin/ and dist/cli/: the kdyn under attack. */
let app: string;
/** The attacker's entry for app's bin.js under `version`, and the name kdyn looks it up by. */
let planted: Buffer;
let entryName: string;
let counter = 0;

/** Copies bin/ and dist/cli/ to `dir` (the bundle gets its own inode, so its own cache entry). */
function copyKdyn(dir: string): void {
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(root, 'dist', 'cli'), join(dir, 'dist', 'cli'), { recursive: true });
}

function runVersion(kdyn: string, env: Record<string, string>): string {
  const r = spawnSync(process.execPath, [join(kdyn, 'bin', 'kdyn'), 'version', '--client'], {
    cwd: scratch,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: join(scratch, 'no-home'), ...env },
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout;
}

/** A fresh directory for one case's cache base, mode 0700 (umask-proof). */
function freshBase(): string {
  const base = join(scratch, `base-${counter++}`);
  mkdirSync(base);
  chmodSync(base, 0o700);
  return base;
}

/** Makes base/kdyn-code-cache/<node version> (each 0700) and returns the entry directory. */
function entryDirIn(base: string): string {
  const dir = join(base, 'kdyn-code-cache', process.version);
  mkdirSync(dir, { recursive: true });
  chmodSync(join(base, 'kdyn-code-cache'), 0o700);
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes the attacker's entry into `dir`, mode 0600, plus a stale-looking entry the cleanup would remove. */
function plant(dir: string): string {
  const file = join(dir, entryName);
  writeFileSync(file, planted, { mode: 0o600 });
  chmodSync(file, 0o600);
  writeFileSync(join(dir, 'bin.js@version.1-2-3'), planted, { mode: 0o600 });
  return file;
}

/** What a directory holds, with each entry's size, to show that kdyn neither read nor wrote it. */
function listing(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((n) => `${n} ${lstatSync(join(dir, n)).size}`)
    .join('\n');
}

/** Runs the app with the cache at `base`; asserts the planted code did not run and the directory was left alone. */
function assertNotUsed(base: string, entryDir: string, why: string): void {
  const before = listing(entryDir);
  assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), GENUINE, `the planted entry ran: ${why}`);
  assert.equal(listing(entryDir), before, `kdyn wrote or cleaned up in a directory it must not trust: ${why}`);
}

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'kdyn-cache-trust-'));
  app = join(scratch, 'app');
  copyKdyn(app);
  // The attacker's bundle: the same length, another text. Its own run writes its entry, which the
  // attacker then copies under the name of app's entry.
  const evil = join(scratch, 'evil');
  copyKdyn(evil);
  const bundle = join(evil, 'dist', 'cli', 'bin.js');
  const text = readFileSync(bundle, 'utf8');
  const evilText = text.replaceAll('Client Version: ', 'PLANTED Version ');
  assert.ok(evilText !== text && evilText.length === text.length);
  writeFileSync(bundle, evilText);
  const evilCache = freshBase();
  assert.equal(runVersion(evil, { XDG_CACHE_HOME: evilCache }), PLANTED);
  const evilDir = join(evilCache, 'kdyn-code-cache', process.version);
  const [evilEntry] = readdirSync(evilDir).filter((n) => n.startsWith('bin.js@version.'));
  assert.ok(evilEntry, `the attacker's run wrote an entry: ${readdirSync(evilDir).join(' ')}`);
  planted = readFileSync(join(evilDir, evilEntry!));
  const st = statSync(join(app, 'dist', 'cli', 'bin.js'));
  entryName = `bin.js@version.${st.ino}-${st.size}-${Math.trunc(st.mtimeMs)}`;
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('control: an entry in a private directory runs (so the cases below would catch a planted entry that ran)', () => {
  const base = freshBase();
  plant(entryDirIn(base));
  assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), PLANTED, 'the planted entry did not run from a private directory: this file no longer tests anything');
});

describe('a directory others can write is not used: the planted entry never runs, nothing is written or removed', () => {
  const cases: Array<[string, (base: string, dir: string) => void]> = [
    ['the base is group-writable', (base) => chmodSync(base, 0o770)],
    ['the base is writable by others (no sticky bit)', (base) => chmodSync(base, 0o707)],
    ['kdyn-code-cache is group-writable', (base) => chmodSync(join(base, 'kdyn-code-cache'), 0o770)],
    ['the entry directory is writable by others', (_base, dir) => chmodSync(dir, 0o703)],
    ['the entry directory is 0755, not the 0700 kdyn makes', (_base, dir) => chmodSync(dir, 0o755)],
  ];
  for (const [name, weaken] of cases) {
    test(name, () => {
      const base = freshBase();
      const dir = entryDirIn(base);
      plant(dir);
      weaken(base, dir);
      assertNotUsed(base, dir, name);
    });
  }

  test('the base, like /tmp, is world-writable with the sticky bit: used only while kdyn-code-cache is our own 0700 directory', (t) => {
    const base = freshBase();
    const dir = entryDirIn(base);
    plant(dir);
    chmodSync(base, 0o1777);
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), PLANTED, 'a private kdyn-code-cache in a sticky base is used (only its owner can change it)');
    chmodSync(join(base, 'kdyn-code-cache'), 0o777);
    assertNotUsed(base, dir, 'kdyn-code-cache is 0777 in a sticky base');
    if (!isRoot) return t.skip('chown needs root');
    chmodSync(join(base, 'kdyn-code-cache'), 0o700);
    chownSync(join(base, 'kdyn-code-cache'), NOBODY, NOBODY);
    assertNotUsed(base, dir, 'another user made kdyn-code-cache first in a sticky base');
  });
});

describe('symlinks on the way are not followed', () => {
  test('kdyn-code-cache is a symlink to a private directory', () => {
    const base = freshBase();
    const elsewhere = freshBase();
    const dir = entryDirIn(elsewhere);
    plant(dir);
    symlinkSync(join(elsewhere, 'kdyn-code-cache'), join(base, 'kdyn-code-cache'));
    assertNotUsed(base, dir, 'kdyn-code-cache is a symlink');
  });

  test('the base itself is a symlink', () => {
    const real = freshBase();
    const dir = entryDirIn(real);
    plant(dir);
    const link = join(scratch, `link-${counter++}`);
    symlinkSync(real, link);
    assertNotUsed(link, dir, 'the base is a symlink');
  });

  test('the entry is a symlink to an entry file elsewhere: not read, replaced by a file of kdyn\'s own', () => {
    const base = freshBase();
    const dir = entryDirIn(base);
    const target = plant(entryDirIn(freshBase()));
    symlinkSync(target, join(dir, entryName));
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), GENUINE, 'the planted entry ran through a symlink');
    const st = lstatSync(join(dir, entryName));
    assert.ok(st.isFile() && (st.mode & 0o777) === 0o600, 'the symlink is replaced by kdyn\'s own entry');
    assert.ok(readFileSync(target).equals(planted), 'the symlink\'s target is left alone');
  });
});

describe('directories and entries owned by another user are not used (root only: chown)', { skip: isRoot ? false : 'chown needs root' }, () => {
  test('the entry directory belongs to another user', () => {
    const base = freshBase();
    const dir = entryDirIn(base);
    plant(dir);
    chownSync(dir, NOBODY, NOBODY);
    assertNotUsed(base, dir, 'the entry directory belongs to uid 65534');
  });

  test('the base belongs to another user (root running kdyn with HOME=/home/alice)', () => {
    const home = freshBase();
    const base = join(home, '.cache');
    mkdirSync(base);
    chmodSync(base, 0o755);
    const dir = entryDirIn(base);
    plant(dir);
    chownSync(base, NOBODY, NOBODY);
    const before = listing(dir);
    assert.equal(runVersion(app, { HOME: home }), GENUINE, 'the planted entry ran from a home owned by another user');
    assert.equal(listing(dir), before);
  });

  test('the entry file belongs to another user, or is readable by others: not read, rewritten', () => {
    const cases: Array<[string, (file: string) => void]> = [
      ['owned by uid 65534', (f) => chownSync(f, NOBODY, NOBODY)],
      ['mode 0644', (f) => chmodSync(f, 0o644)],
    ];
    for (const [name, weaken] of cases) {
      const base = freshBase();
      const dir = entryDirIn(base);
      const file = plant(dir);
      weaken(file);
      assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), GENUINE, `the planted entry ran: the entry is ${name}`);
      const st = statSync(file);
      assert.ok(st.uid === process.geteuid!() && (st.mode & 0o777) === 0o600 && !readFileSync(file).equals(planted), `kdyn wrote its own entry in place of the one ${name}`);
      assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), GENUINE);
    }
  });
});

describe('directories kdyn makes', () => {
  test('a missing base is made 0700 (its parent must exist), each directory below it 0700, and the cache is then used', () => {
    const base = join(freshBase(), 'cache');
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), GENUINE);
    for (const d of [base, join(base, 'kdyn-code-cache'), join(base, 'kdyn-code-cache', process.version)]) {
      assert.equal(statSync(d).mode & 0o777, 0o700, d);
    }
    assert.ok(existsSync(join(base, 'kdyn-code-cache', process.version, entryName)), 'the entry is written');
    // Only now: the entry is ours, in our private directory; kdyn uses what it holds.
    plant(join(base, 'kdyn-code-cache', process.version));
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base }), PLANTED);
  });

  test('a base whose parent is missing is not made (kdyn makes no directory it did not check)', () => {
    const parent = join(freshBase(), 'missing');
    assert.equal(runVersion(app, { XDG_CACHE_HOME: join(parent, 'cache') }), GENUINE);
    assert.ok(!existsSync(parent), 'nothing made');
  });

  test('KDYN_CODE_CACHE=node: Node\'s compile cache is not enabled in a directory others can write', () => {
    const base = freshBase();
    chmodSync(base, 0o777);
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base, KDYN_CODE_CACHE: 'node' }), GENUINE);
    assert.deepEqual(readdirSync(base), [], 'no kdyn-compile-cache made in a world-writable base');
    chmodSync(base, 0o700);
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base, KDYN_CODE_CACHE: 'node' }), GENUINE);
    assert.equal(statSync(join(base, 'kdyn-compile-cache', 'version')).mode & 0o777, 0o700, 'used in a private base');
    assert.ok(readdirSync(join(base, 'kdyn-compile-cache', 'version')).length > 0, 'Node wrote its entries');
  });
});

/**
 * Node's compile cache (KDYN_CODE_CACHE=node) checks only hashes: the source's size and
 * CRC-32 and the cached bytes' CRC-32 (docs/design/startup.md). The attacker's entry is that of an
 * evil bundle of the same length, its source CRC-32 replaced by the real bundle's, under the name Node
 * gave the real entry. Node's entry holds only the code compiled when the file loaded (functions
 * compiled later come from the real source), so the evil bundle prints from its top level.
 */
describe("Node's compile cache (KDYN_CODE_CACHE=node): a planted entry runs only from a private directory", () => {
  const NODE = { KDYN_CODE_CACHE: 'node' };
  /** Node's entry directory for `version` under base, made by a genuine run. */
  const nodeEntryDir = (base: string): string => {
    const dir = join(base, 'kdyn-compile-cache', 'version');
    const [tag] = readdirSync(dir);
    assert.ok(tag, `Node made its directory in ${dir}`);
    return join(dir, tag!);
  };
  /** The entry of bin.js in `dir`: the file whose header holds the bundle's CRC-32. */
  const entryOf = (dir: string, crc: number): string => {
    const want = Buffer.alloc(4);
    want.writeUInt32LE(crc >>> 0);
    const file = readdirSync(dir).find((n) => readFileSync(join(dir, n)).subarray(0, 32).includes(want));
    assert.ok(file, `an entry for bin.js in ${dir}: ${readdirSync(dir).join(' ')}`);
    return join(dir, file!);
  };
  let forged: Buffer;

  before(() => {
    const realCrc = crc32(readFileSync(join(app, 'dist', 'cli', 'bin.js')));
    const evil = join(scratch, 'evil-top');
    copyKdyn(evil);
    const bundle = join(evil, 'dist', 'cli', 'bin.js');
    // The same length in UTF-16 units (V8's check) and in UTF-8 bytes (Node's): 'é' is one unit, two bytes.
    const text = readFileSync(bundle, 'utf8');
    const extra = Buffer.byteLength(text) - text.length;
    const payload = `require('fs').writeSync(1, ${JSON.stringify(PLANTED)}); process.exit(0); /*${'é'.repeat(extra)}`;
    writeFileSync(bundle, `${payload}${' '.repeat(text.length - payload.length - 2)}*/`);
    const evilCrc = crc32(readFileSync(bundle));
    const evilBase = freshBase();
    assert.equal(runVersion(evil, { XDG_CACHE_HOME: evilBase, ...NODE }), PLANTED);
    const entry = readFileSync(entryOf(nodeEntryDir(evilBase), evilCrc));
    const at = entry.subarray(0, 32).indexOf(Buffer.from(new Uint32Array([evilCrc >>> 0]).buffer));
    forged = Buffer.from(entry);
    forged.writeUInt32LE(realCrc >>> 0, at);
  });

  /** A base where a genuine run made Node's entry, then replaced by the forged one. */
  const plantNode = (): { base: string; file: string } => {
    const base = freshBase();
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base, ...NODE }), GENUINE);
    const dir = nodeEntryDir(base);
    const file = readdirSync(dir).map((n) => join(dir, n))[0]!;
    writeFileSync(file, forged);
    return { base, file };
  };

  test('control: the forged entry runs from a private directory (so the cases below would catch it)', () => {
    const { base } = plantNode();
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base, ...NODE }), PLANTED, "Node's compile cache did not run the forged entry: this test no longer tests anything");
  });

  const cases: Array<[string, (base: string) => void]> = [
    ['the base is group-writable', (base) => chmodSync(base, 0o770)],
    ['kdyn-compile-cache is writable by others', (base) => chmodSync(join(base, 'kdyn-compile-cache'), 0o703)],
    ["the command's directory is 0755, not the 0700 kdyn makes", (base) => chmodSync(join(base, 'kdyn-compile-cache', 'version'), 0o755)],
  ];
  for (const [name, weaken] of cases) {
    test(name, () => {
      const { base, file } = plantNode();
      weaken(base);
      assert.equal(runVersion(app, { XDG_CACHE_HOME: base, ...NODE }), GENUINE, `the forged entry ran: ${name}`);
      assert.ok(readFileSync(file).equals(forged), 'the entry was left alone');
    });
  }

  test('kdyn-compile-cache is a symlink to a private directory', () => {
    const { base: elsewhere } = plantNode();
    const base = freshBase();
    symlinkSync(join(elsewhere, 'kdyn-compile-cache'), join(base, 'kdyn-compile-cache'));
    assert.equal(runVersion(app, { XDG_CACHE_HOME: base, ...NODE }), GENUINE, 'the forged entry ran through a symlink');
  });
});
