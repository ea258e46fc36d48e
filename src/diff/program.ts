/**
 * The unified diff as kubectl diff makes it: the LIVE and MERGED texts of every object written as
 * files named `group.version.Kind.namespace.name` into two fresh temp dirs (`$TMPDIR/LIVE-<n>`,
 * `$TMPDIR/MERGED-<n>`, Go's os.MkdirTemp names), then `diff -u -N LIVE MERGED`, or the
 * `KUBECTL_EXTERNAL_DIFF` command (its first word the program; further words kept only if they are
 * made of letters, digits, `-` and `=`, and passed after the two directories). The program's exit
 * status is the answer: 0 no differences, 1 differences, anything else (or a program that cannot be
 * run) a DiffProgramError worded as kubectl's (`failed to run "diff": exit status 2`). The dirs are
 * removed afterwards. For the default `diff -u -N`, objects whose two texts are equal are not written
 * (it prints nothing for equal files, so the output is the same; writing 400 small files was most of
 * a run); an external program gets every file, as kubectl gives it.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { randomInt } from 'node:crypto';
import { KdynError } from '../core/errors.js';
import type { ObjectDiff } from './diff.js';
import { runBounded } from '../apply/bounded.js';

/** Files written at once. */
const WRITE_CONCURRENCY = 32;

/** The diff program could not be run, or ended with a status other than 0 or 1 (with what it wrote). */
export class DiffProgramError extends KdynError {
  constructor(message: string, readonly stdout = '', readonly stderr = '') {
    super(message);
  }
}

export interface DiffCommand {
  /** The program as given (`diff`, or KUBECTL_EXTERNAL_DIFF's first word). */
  program: string;
  /** Arguments before the two directories. */
  before: string[];
  /** Arguments after them (KUBECTL_EXTERNAL_DIFF's kept words). */
  after: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** kubectl's choice of diff program (`DiffProgram.getCommand`). */
export function diffCommand(env: Env): DiffCommand {
  const external = env.KUBECTL_EXTERNAL_DIFF;
  if (!external) return { program: 'diff', before: ['-u', '-N'], after: [] };
  const [program, ...words] = external.split(' ');
  return { program: program!, before: [], after: words.filter((w) => /^[a-zA-Z0-9\-=]+$/.test(w)) };
}

/** The executable the program names, found as Go's exec.LookPath finds it, or a DiffProgramError as kubectl words it. */
export async function findProgram(cmd: DiffCommand, env: Env): Promise<string> {
  // Empty and relative PATH entries are skipped (Go refuses a program found relative to the current directory).
  const candidates = cmd.program.includes('/') ? [cmd.program] : (env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d)).map((d) => join(d, cmd.program));
  for (const c of candidates) {
    if (await access(c, constants.X_OK).then(() => true, () => false)) return c;
  }
  throw new DiffProgramError(`failed to run ${JSON.stringify(cmd.program)}: executable file not found in $PATH`);
}

export interface ProgramRun {
  /** 0: no differences; 1: differences (the program's own exit status). */
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
}

export interface UnifiedDiffOptions {
  /** The environment: PATH, TMPDIR and KUBECTL_EXTERNAL_DIFF are read; the program gets it whole. */
  env: Readonly<Record<string, string | undefined>>;
}

/** Writes the two trees of `objects` and runs the diff program over them. */
export async function unifiedDiff(objects: readonly ObjectDiff[], o: UnifiedDiffOptions): Promise<ProgramRun> {
  const cmd = diffCommand(o.env);
  const executable = await findProgram(cmd, o.env);
  const tmp = o.env.TMPDIR || '/tmp';
  const from = await goTempDir(tmp, 'LIVE-');
  let to: string | undefined;
  try {
    to = await goTempDir(tmp, 'MERGED-');
    // An object given twice is written once, its later version (kubectl overwrites the file).
    const last = new Map<string, ObjectDiff>();
    for (const obj of objects) last.set(obj.name, obj);
    const writes: Array<[string, string]> = [];
    // `diff -u -N` prints nothing for two equal files: only KUBECTL_EXTERNAL_DIFF's program sees those.
    const all = Boolean(o.env.KUBECTL_EXTERNAL_DIFF);
    for (const obj of last.values()) {
      if (!all && !obj.differs) continue;
      writes.push([join(from, obj.name), obj.texts.live]);
      if (obj.merged !== null) writes.push([join(to, obj.name), obj.texts.merged]);
    }
    await runBounded(writes.map((_, i) => i), WRITE_CONCURRENCY, (i) => writeFile(writes[i]![0], writes[i]![1], { mode: 0o700 }));
    return await run(executable, cmd, [...cmd.before, from, to, ...cmd.after], o.env);
  } finally {
    await Promise.all([from, to].map((d) => (d ? rm(d, { recursive: true, force: true }) : undefined)));
  }
}

function run(executable: string, cmd: DiffCommand, args: string[], env: Env): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new DiffProgramError(`failed to run ${JSON.stringify(cmd.program)}: ${e.message}`)));
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0 || code === 1) return resolve({ exitCode: code, stdout, stderr });
      const why = signal ? `signal: ${signalName(signal)}` : `exit status ${code}`;
      reject(new DiffProgramError(`failed to run ${JSON.stringify(cmd.program)}: ${why}`, stdout, stderr));
    });
  });
}

/** Go's names of the common signals (`signal: killed`). */
function signalName(s: NodeJS.Signals): string {
  return ({ SIGKILL: 'killed', SIGTERM: 'terminated', SIGINT: 'interrupt', SIGSEGV: 'segmentation fault', SIGABRT: 'aborted', SIGPIPE: 'broken pipe' } as Record<string, string>)[s] ?? s;
}

/** A new directory `<tmp>/<prefix><random uint32>` (mode 0700), as Go's os.MkdirTemp names it. */
async function goTempDir(tmp: string, prefix: string): Promise<string> {
  for (;;) {
    const dir = join(tmp, `${prefix}${randomInt(0, 2 ** 32 - 1)}`);
    try {
      await mkdir(dir, { mode: 0o700 });
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
