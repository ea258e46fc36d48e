/**
 * `kdyn apply`: server-side apply of manifests (src/apply does the work). Reads and checks every
 * `-f` source before any connection is made, then applies in stages and prints one line per object
 * in input order (`kind.group/name serverside-applied`, `unchanged`, kubectl's ` (server dry run)`),
 * or the objects (`-o name|json|yaml|jsonl`). Failures go to stderr one line each, then a summary;
 * exit 1 if any object failed, 130 after SIGINT and 143 after SIGTERM (no new request starts, the
 * ones in flight finish, the summary says what was done).
 */
import { UsageError, StatusError, errorFromServer } from '../../core/errors.js';
import type { IO } from '../../core/io.js';
import type { Unstructured } from '../../core/unstructured.js';
import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import { parseDuration } from '../duration.js';
import { parseGroupVersion } from '../../core/gvk.js';
import { groupKindPrefix } from '../../printers/name.js';
import { createObjectPrinter } from '../../printers/index.js';
import { decodeSources, noObjectsError, readSources } from '../../apply/sources.js';
import { describeOrigin, ManifestError, type Manifest } from '../../apply/manifests.js';
import { planRequests } from '../../apply/requests.js';
import { applyManifests, type ApplyOptions, type ApplyReport, type ApplyResult, type FieldValidation } from '../../apply/apply.js';
import { failureReason } from '../../apply/conflict.js';
import { MappingError } from '../../apply/resolve.js';
import { wantsFleet } from '../fleet.js';

type Output = 'text' | 'name' | 'json' | 'yaml' | 'jsonl';

export interface ApplyCommandOptions {
  files: string[];
  recursive: boolean;
  output: Output;
  dryRun: 'none' | 'server' | 'client';
  fieldManager: string;
  force: boolean;
  validation: FieldValidation;
  concurrency: number;
  wait: boolean;
  timeoutMs: number;
  /** Whether --timeout was given (it then also bounds the wait for new CRDs). */
  timeoutGiven: boolean;
  showManagedFields: boolean;
}

/** Flags -> options; every usage error before any file is read or request made. */
export function readOptions(flags: ParsedArgs['flags'], explicit: ReadonlySet<string>): ApplyCommandOptions {
  if (explicit.has('kustomize')) throw new UsageError('-k/--kustomize is not supported: run `kustomize build DIR | kdyn apply -f -`');
  if (flags['server-side'] === false) throw new UsageError('kdyn apply is server-side apply only: --server-side=false (client-side apply) is not supported');
  const files = Array.isArray(flags.filename) ? flags.filename : [];
  if (files.length === 0) throw new UsageError('must specify -f (a file, a directory, or - for stdin)');
  const concurrency = typeof flags.concurrency === 'number' ? flags.concurrency : 8;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--concurrency" flag: must be at least 1`);
  const validate = String(flags.validate ?? 'strict');
  const validation: FieldValidation = validate === 'warn' ? 'Warn' : validate === 'ignore' || validate === 'false' ? 'Ignore' : 'Strict';
  return {
    files,
    recursive: flags.recursive === true,
    output: (typeof flags.output === 'string' && flags.output ? flags.output : 'text') as Output,
    dryRun: (flags['dry-run'] ?? 'none') as ApplyCommandOptions['dryRun'],
    fieldManager: typeof flags['field-manager'] === 'string' && flags['field-manager'] ? flags['field-manager'] : 'kdyn',
    force: flags['force-conflicts'] === true,
    validation,
    concurrency,
    wait: flags.wait === true,
    timeoutMs: parseDuration(String(flags.timeout ?? '5m'), 'timeout'),
    timeoutGiven: explicit.has('timeout'),
    showManagedFields: flags['show-managed-fields'] === true,
  };
}

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  try {
    return await runApply(args, ctx, io);
  } catch (e) {
    // Bad input: one line per problem, nothing was sent.
    if (!(e instanceof ManifestError)) throw e;
    for (const p of e.problems) io.stderr.write(`error: ${p}\n`);
    return 1;
  }
}

async function runApply(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const opts = readOptions(args.flags, args.explicit);
  // Everything is read and decoded before the first request: bad input sends nothing.
  const sources = await readSources(opts.files, { cwd: io.cwd, recursive: opts.recursive, stdin: () => readAll(io) });
  const manifests = decodeSources(sources);
  if (manifests.length === 0) throw noObjectsError(sources);
  // Several contexts (issue 24): ../../fleet/apply.ts.
  if (wantsFleet(args.flags, false)) return (await import('./apply-fleet.js')).runFleet(args, ctx, io, opts, manifests);

  const applyOpts: ApplyOptions = {
    fieldManager: opts.fieldManager,
    force: opts.force,
    dryRun: opts.dryRun === 'server',
    fieldValidation: opts.validation,
    concurrency: opts.concurrency,
    namespace: await ctx.namespace(),
    enforceNamespace: ctx.explicit.has('namespace'),
  };
  if (opts.dryRun === 'client') return clientDryRun(manifests, ctx, io, opts, applyOpts);

  await ctx.preconnect();
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  // SIGINT/SIGTERM (until the summary): no new request starts, the ones in flight finish.
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  try {
    const printer = resultPrinter(opts, io);
    const report = await applyManifests(manifests, { client, mapper, clock: ctx.clock }, {
      ...applyOpts,
      signal: stop.signal,
      detectUnchanged: opts.output === 'text',
      establishTimeoutMs: opts.timeoutGiven ? opts.timeoutMs : undefined,
      onResult: printer.result,
    });
    await printer.end();
    let waitFailed = 0;
    let ready: number | undefined;
    if (opts.wait && !report.interrupted && opts.dryRun === 'none') {
      ({ waitFailed, ready } = await waitForResults(report, ctx, io, opts, stop.signal));
    }
    io.stderr.write(summary(report, opts, ready, stop.signal.aborted) + '\n');
    if (signalled) return signalled === 'SIGINT' ? 130 : 143;
    return report.failed > 0 || waitFailed > 0 ? 1 : 0;
  } finally {
    unregister?.();
  }
}

/** `configmap/x`, `crontab.stable.example.com/x`: the mapping's kind and group, else the manifest's. */
export function objectRef(r: Pick<ApplyResult, 'mapping' | 'manifest' | 'sent'>): string {
  const obj = r.sent ?? r.manifest.object;
  const kind = r.mapping?.gvk.kind ?? String(obj.kind);
  const group = r.mapping?.gvk.group ?? parseGroupVersion(String(obj.apiVersion)).group;
  return `${groupKindPrefix({ group, kind })}/${String(obj.metadata?.name)}`;
}

/** One failed object, one line (kubectl's `Error from server (Reason): ...` for server errors). */
export function failureLine(r: ApplyResult): string {
  const e = r.error;
  const where = `${objectRef(r)} from ${describeOrigin(r.manifest)}`;
  if (e instanceof StatusError) return `${errorFromServer(e.status)}: error when applying ${where}: ${failureReason(e)}`;
  if (e instanceof MappingError) return `error: ${failureReason(e)}`; // already names the object and its origin
  return `error: ${where}: ${failureReason(e)}`;
}

function resultPrinter(opts: ApplyCommandOptions, io: IO): { result: (r: ApplyResult) => void; end: () => Promise<void> } {
  const objects: Unstructured[] = [];
  const dry = opts.dryRun === 'server' ? ' (server dry run)' : '';
  const result = (r: ApplyResult): void => {
    if (r.status === 'failed') {
      io.stderr.write(failureLine(r) + '\n');
      return;
    }
    if (r.status === 'skipped' || !r.object) return;
    const obj = r.object;
    if (!opts.showManagedFields && obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
    switch (opts.output) {
      case 'text':
        io.stdout.write(`${objectRef(r)} ${r.status === 'unchanged' ? 'unchanged' : 'serverside-applied'}${dry}\n`);
        return;
      case 'name':
        io.stdout.write(`${objectRef(r)}\n`);
        return;
      case 'jsonl':
        io.stdout.write(JSON.stringify(obj) + '\n');
        return;
      default:
        objects.push(obj);
    }
  };
  const end = async (): Promise<void> => {
    if (opts.output !== 'json' && opts.output !== 'yaml' || objects.length === 0) return;
    // kubectl prints one object as itself and several as a List.
    const p = await createObjectPrinter({ type: opts.output }, { singleItemImplied: true });
    io.stdout.write(p.page(objects, { group: '', kind: '' }) + p.end());
  };
  return { result, end };
}

export function summary(report: ApplyReport, opts: ApplyCommandOptions, ready: number | undefined, interrupted: boolean): string {
  const total = report.results.length;
  const unchanged = report.results.filter((r) => r.status === 'unchanged').length;
  let s = `${total} object${total === 1 ? '' : 's'}: ${report.succeeded} succeeded${unchanged ? ` (${unchanged} unchanged)` : ''}, ${report.failed} failed`;
  if (report.skipped) s += `, ${report.skipped} not attempted`;
  if (ready !== undefined) s += `; ${ready} ready`;
  if (opts.dryRun === 'server') s += ' (server dry run)';
  return interrupted ? `interrupted: ${s}` : s;
}

async function waitForResults(report: ApplyReport, ctx: Context, io: IO, opts: ApplyCommandOptions, signal: AbortSignal): Promise<{ waitFailed: number; ready: number }> {
  const { waitReady } = await import('../../apply/wait.js');
  const client = await ctx.dynamic();
  const applied = report.results.filter((r) => r.object && r.mapping && r.status !== 'failed' && r.status !== 'skipped');
  const items = applied.map((r) => {
    const h = client.resource(r.mapping!.gvr, { namespaced: r.mapping!.namespaced });
    const ns = r.object!.metadata?.namespace;
    return { handle: r.mapping!.namespaced && ns ? h.namespace(ns) : h, name: String(r.object!.metadata?.name), last: r.object };
  });
  const outcomes = await waitReady(items, { clock: ctx.clock, timeoutMs: opts.timeoutMs, signal });
  let waitFailed = 0;
  outcomes.forEach((o, k) => {
    if (o.state === 'ready') return;
    waitFailed++;
    const what = o.state === 'timeout' ? `timed out waiting for ${objectRef(applied[k]!)}` : `${objectRef(applied[k]!)} is not ready (${o.state})`;
    io.stderr.write(`error: ${what}: ${o.message}\n`);
  });
  return { waitFailed, ready: outcomes.length - waitFailed };
}

async function clientDryRun(manifests: Manifest[], ctx: Context, io: IO, opts: ApplyCommandOptions, applyOpts: ApplyOptions): Promise<number> {
  const { requests, errors } = await planRequests(manifests, { mapper: await ctx.mapper() }, applyOpts);
  const bodies = requests.map((r) => r.body);
  if (opts.output === 'json' || opts.output === 'yaml') {
    const p = await createObjectPrinter({ type: opts.output }, { singleItemImplied: true });
    if (bodies.length) io.stdout.write(p.page(bodies, { group: '', kind: '' }) + p.end());
  } else if (opts.output === 'jsonl') {
    io.stdout.write(bodies.map((b) => JSON.stringify(b) + '\n').join(''));
  } else if (opts.output === 'name') {
    io.stdout.write(requests.map((r) => `${objectRef({ manifest: r.manifest, sent: r.body })}\n`).join(''));
  } else {
    // The requests themselves: a YAML stream that `kdyn apply -f -` would read back.
    const { toYAML } = await import('../../printers/yaml.js');
    io.stdout.write(requests.map((r) => `# ${r.method} ${r.path}?${new URLSearchParams(r.query).toString()}\n${toYAML(r.body)}`).join('---\n'));
  }
  for (const e of errors) io.stderr.write(`error: ${failureReason(e.error)}\n`);
  io.stderr.write(`${manifests.length} object${manifests.length === 1 ? '' : 's'}: ${requests.length} would be sent, ${errors.length} failed (client dry run)\n`);
  return errors.length ? 1 : 0;
}

async function readAll(io: IO): Promise<string> {
  const stdin = io.stdin;
  if (!stdin) throw new UsageError('standard input is not available for -f -');
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
