/**
 * Where manifests come from (kubectl `-f`): files, directories (`.yaml .yml .json`, `-R` to recurse,
 * entries in lexical order as Go's filepath.Walk), `-` for standard input (source `STDIN`); `-f` may
 * repeat. URLs and kustomize are out of scope. Every source is read and decoded before anything is
 * sent: any problem in any source fails the whole input (ManifestError).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { KdynError, UsageError } from '../core/errors.js';
import { pathError } from '../core/fs-errors.js';
import { decodeManifests, ManifestError, type Manifest } from './manifests.js';

export interface ReadOptions {
  /** Resolve relative paths against this directory. */
  cwd: string;
  /** `-R`: walk directories recursively. */
  recursive?: boolean;
  /** Standard input, for `-`. */
  stdin?: () => Promise<string>;
}

export interface Source {
  /** As kubectl names it in messages: the path as given (joined for directory entries), or `STDIN`. */
  name: string;
  text: string;
  /** A directory that held no manifest file (`text` is empty). */
  emptyDirectory?: boolean;
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** Reads every `-f` argument, in order. A missing path, a URL or a second `-` is an error. */
export async function readSources(paths: readonly string[], opts: ReadOptions): Promise<Source[]> {
  const out: Source[] = [];
  let stdinUsed = false;
  for (const p of paths) {
    if (p === '-') {
      if (stdinUsed) throw new UsageError('-f - (standard input) may be given only once');
      if (!opts.stdin) throw new UsageError('standard input is not available for -f -');
      stdinUsed = true;
      out.push({ name: 'STDIN', text: await opts.stdin() });
      continue;
    }
    if (/^https?:\/\//i.test(p)) throw new UsageError(`-f ${p}: URLs are not supported; download the file and pass its path`);
    const full = resolvePath(opts.cwd, p);
    const st = await stat(full).catch(() => undefined);
    if (!st) throw new ManifestError([`the path ${JSON.stringify(p)} does not exist`]);
    if (st.isDirectory()) {
      const files = await listDirectory(full, p, opts.recursive === true);
      if (files.length === 0) out.push({ name: p, text: '', emptyDirectory: true });
      for (const f of files) out.push({ name: f.name, text: await readText(f.full, f.name) });
    } else {
      out.push({ name: p, text: await readText(full, p) });
    }
  }
  return out;
}

/** Decodes every source; throws ManifestError listing every problem if there is any. */
export function decodeSources(sources: readonly Source[]): Manifest[] {
  const manifests: Manifest[] = [];
  const problems: string[] = [];
  for (const s of sources) {
    const r = decodeManifests(s.text, s.name);
    manifests.push(...r.manifests);
    problems.push(...r.problems);
  }
  if (problems.length) throw new ManifestError(problems);
  return manifests;
}

/** kubectl's `no objects passed to apply`, naming the directories that held no manifest file. */
export function noObjectsError(sources: readonly Source[]): KdynError {
  const empty = sources.filter((s) => s.emptyDirectory).map((s) => JSON.stringify(s.name));
  const why = empty.length ? `: no ${MANIFEST_EXTENSIONS.join(' ')} files in ${empty.join(', ')}` : '';
  return new KdynError(`no objects passed to apply${why}`);
}

async function listDirectory(full: string, shown: string, recursive: boolean): Promise<Array<{ full: string; name: string }>> {
  const out: Array<{ full: string; name: string }> = [];
  const entries = (await readdir(full, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const f = join(full, e.name);
    const name = join(shown, e.name);
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      const st = await stat(f).catch(() => undefined);
      isDir = st?.isDirectory() ?? false;
      isFile = st?.isFile() ?? false;
    }
    if (isDir) {
      if (recursive) out.push(...(await listDirectory(f, name, true)));
    } else if (isFile && MANIFEST_EXTENSIONS.some((x) => e.name.endsWith(x))) {
      out.push({ full: f, name });
    }
  }
  return out;
}

async function readText(full: string, shown: string): Promise<string> {
  try {
    return await readFile(full, 'utf8');
  } catch (e) {
    throw new ManifestError([pathError(shown, e)]);
  }
}

/** All of a stream as UTF-8 text: standard input for `-f -` (a UsageError when there is none). */
export async function readStream(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (!stream) throw new UsageError('standard input is not available for -f -');
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
