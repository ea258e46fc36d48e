/**
 * `kdyn diff`: what applying the manifests would change (../../diff/), over one context or several
 * (one cluster is a fleet of one: ../../fleet/diff.ts). The input is read and checked, and the diff
 * program found, before any request. One context without a fleet selector prints exactly what
 * kubectl diff --server-side prints; several print one section per context, `# context "NAME"` and
 * its diff, in the contexts' order, a failed context being one error line. Exit status as kubectl's:
 * 0 no differences, 1 differences (any context), >1 an error (any context, or the diff program).
 */
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import { parseLabelSelector } from '../../core/label-selector.js';
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import { reportError } from '../report-error.js';
import { decodeSources, readSources, readStream } from '../../apply/sources.js';
import { ManifestError } from '../../apply/manifests.js';
import { diffCommand, DiffProgramError, findProgram, type ProgramRun } from '../../diff/program.js';
import { diffContexts } from '../../fleet/diff.js';
import type { ContextResult } from '../../fleet/fanout.js';
import { contextsFor } from '../fleet.js';

/** kubectl diff's status for an error (its CheckDiffErr: an error's code plus one). */
const ERROR_EXIT = 2;

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  try {
    return await runDiff(args, ctx, io);
  } catch (e) {
    if (e instanceof ManifestError) {
      for (const p of e.problems) io.stderr.write(`error: ${p}\n`);
      return ERROR_EXIT;
    }
    if (e instanceof DiffProgramError) passOn(e, io);
    reportError(e, verbosity(args), io, args.command, args.prog);
    return ERROR_EXIT;
  }
}

async function runDiff(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const f = args.flags;
  if (args.explicit.has('kustomize')) throw new UsageError('-k/--kustomize is not supported: run `kustomize build DIR | kdyn diff -f -`');
  if (f['server-side'] === false) throw new UsageError('kdyn diff is server-side apply only: --server-side=false (client-side apply) is not supported');
  const files = Array.isArray(f.filename) ? f.filename : [];
  if (files.length === 0) throw new UsageError('must specify one of -f and -k');
  const concurrency = typeof f.concurrency === 'number' ? f.concurrency : 8;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--concurrency" flag: must be at least 1`);
  const selector = typeof f.selector === 'string' && f.selector !== '' ? f.selector : undefined;
  if (selector) parseLabelSelector(selector);
  const applyset = typeof f.applyset === 'string' && f.applyset !== '' ? f.applyset : undefined;
  if (f.prune === true && !applyset) throw new UsageError('--prune needs --applyset=[RESOURCE][.GROUP]/NAME: the ApplySet whose members the input no longer holds are shown as deleted');
  if (applyset && f.prune !== true) throw new UsageError('--applyset requires --prune');
  // The diff program is looked for before any request: a missing one fails at once.
  await findProgram(diffCommand(io.env), io.env);

  const sources = await readSources(files, { cwd: io.cwd, recursive: f.recursive === true, stdin: () => readStream(io.stdin) });
  const empty = sources.filter((s) => s.emptyDirectory).map((s) => s.name);
  if (empty.length) throw new ManifestError([`error reading [${empty.join(', ')}]: recognized file extensions are [.json .yaml .yml]`]);
  const manifests = decodeSources(sources);

  const fleet = await contextsFor(args, ctx, { namespaces: false });
  const several = fleet.showContext;
  let errors = 0;
  let differs = false;
  const print = (r: ContextResult<ProgramRun>) => {
    // A section: the header, then what the diff program wrote (also when it failed after writing).
    const section = r.ok ? r.value : r.error instanceof DiffProgramError && r.error.stdout ? r.error : undefined;
    if (several && section) io.stdout.write(`# context ${JSON.stringify(r.context)}\n`);
    if (section) passOn(section, io);
    if (r.ok) differs ||= r.value.exitCode === 1;
    else {
      errors++;
      fleet.report(r.context, r.error);
    }
  };
  await diffContexts(fleet.contexts, fleet.open, manifests, {
    diff: {
      fieldManager: typeof f['field-manager'] === 'string' && f['field-manager'] ? f['field-manager'] : 'kdyn',
      force: f['force-conflicts'] === true,
      enforceNamespace: ctx.explicit.has('namespace'),
      selector,
      concurrency,
      showManagedFields: f['show-managed-fields'] === true,
      skipUnchanged: f['skip-unchanged'] === true,
    },
    env: io.env,
    // --prune --applyset: the input labelled as the set's apply sends it; members it no longer holds shown deleted.
    prepare: applyset
      ? async (deps, input, namespace) => {
          const d = await (await import('../../fleet/diff-prune.js')).applySetDiff(deps, input, applyset, namespace);
          return { manifests: d.labelled, pruned: d.pruned };
        }
      : undefined,
    concurrency: fleet.concurrency,
    clock: ctx.clock,
    onWarning: (context, message, style) => (style === 'klog' ? ctx.logger.warn(message) : io.stderr.write(several ? `context ${JSON.stringify(context)}: ${message}` : message)),
    onContext: print,
  });
  if (errors > 0) return ERROR_EXIT;
  return differs ? 1 : 0;
}

/** What the diff program wrote, passed on as it wrote it. */
function passOn(r: { stdout: string; stderr: string }, io: IO): void {
  if (r.stdout) io.stdout.write(r.stdout);
  if (r.stderr) io.stderr.write(r.stderr);
}

function verbosity(args: ParsedArgs): number {
  return typeof args.flags.v === 'number' ? args.flags.v : 0;
}
