/**
 * `kdyn types`: TypeScript declarations for resource types, from the server's OpenAPI v3 (the served
 * version the name resolves to) or from CRD manifests (`-f`, no server). Flags -> src/typegen -> stdout
 * or one file per group-version and an index under --output-dir.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { KdynError, UsageError } from '../../core/errors.js';
import { pathError } from '../../core/fs-errors.js';
import { generateModule, type GenerateOptions, type KindSource } from '../../typegen/generate.js';
import { generateFiles, kindsFromCrdManifests, kindsFromServer } from '../../typegen/types.js';
import { splitResourceArgument } from '../../restmapper/args.js';

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const f = args.flags;
  const files = Array.isArray(f.filename) ? f.filename.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  const all = f.all === true;
  if (files.length && (args.args.length || all)) throw new UsageError('-f reads CRD manifests: give either -f or resource types (--all), not both');
  if (!files.length && !all && !args.args.length) throw new UsageError('specify resource types (e.g. kdyn types crontabs), --all [GROUP...], or -f CRD-FILE');
  const options: GenerateOptions = { importFrom: typeof f['import-from'] === 'string' && f['import-from'] ? f['import-from'] : 'kdyn' };

  // Resource types as `get` takes them: `configmaps,deployments` is two (kubectl's SplitResourceArgument).
  const names = all ? args.args : args.args.flatMap(splitResourceArgument);
  const kinds = files.length ? await fromFiles(files, io) : await fromServer(names, all, ctx, io);
  if (!kinds.length) throw new KdynError('no resource types matched');

  const outDir = typeof f['output-dir'] === 'string' && f['output-dir'] ? resolve(io.cwd, f['output-dir']) : undefined;
  if (!outDir) {
    io.stdout.write(generateModule(kinds, options));
    return 0;
  }
  const shown = String(f['output-dir']);
  await mkdir(outDir, { recursive: true }).catch((e: unknown) => {
    throw new KdynError(`--output-dir: ${pathError(shown, e)}`);
  });
  for (const [name, text] of generateFiles(kinds, options)) {
    await writeFile(join(outDir, name), text).catch((e: unknown) => {
      throw new KdynError(pathError(join(shown, name), e));
    });
    io.stdout.write(`${join(shown, name)}\n`);
  }
  return 0;
}

async function fromServer(names: readonly string[], all: boolean, ctx: Context, io: IO): Promise<KindSource[]> {
  const [mapper, discovery, openapi] = await Promise.all([ctx.mapper(), ctx.discovery(), ctx.openapi()]);
  // --all enumerates the groups' kinds: revalidated as api-resources does (ETags; a 304 downloads
  // nothing), never a cached list missing a CRD created since. Named types refetch on a miss.
  if (all) discovery.invalidate();
  const snapshot = async () => {
    const s = await discovery.snapshot();
    // A group-version that could not be discovered has no kinds here: said, as api-resources says it.
    for (const failure of s.failures) io.stderr.write(`Warning: ${failure.message}\n`);
    return s;
  };
  const kinds = await kindsFromServer({ mapper, snapshot, openapi }, names, all);
  await ctx.flush();
  return kinds;
}

async function fromFiles(files: readonly string[], io: IO): Promise<KindSource[]> {
  const { readSources } = await import('../../apply/sources.js');
  const sources = await readSources(files, { cwd: io.cwd, stdin: () => readStdin(io) });
  const kinds: KindSource[] = [];
  for (const s of sources) if (!s.emptyDirectory) kinds.push(...kindsFromCrdManifests(s.text, s.name));
  return kinds;
}

async function readStdin(io: IO): Promise<string> {
  if (!io.stdin) throw new UsageError('standard input is not available for -f -');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
