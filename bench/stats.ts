/** Pure parts of the harness: statistics, verdicts, argument parsing and formatting. */
import type { CaseResult, SideResult, Target } from './types.js';

/** The median (mean of the two middle values for an even count). Throws on an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no samples');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function summarize(command: string, samples: readonly number[]): SideResult {
  return {
    command,
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    samples: [...samples],
  };
}

/** kdyn's median over the baseline's; undefined when the baseline's is not positive. */
export function ratio(kdyn: number, baseline: number): number | undefined {
  if (!(baseline > 0)) return undefined;
  return kdyn / baseline;
}

/** Whether a result meets its target (ratio cases: median ratio; absolute and size: kdyn's median). */
export function meets(target: Target, kdynMedian: number, r: number | undefined): boolean | undefined {
  if (target.kind === 'ratio') return r === undefined ? undefined : r <= target.max;
  if (target.kind === 'size') return kdynMedian < target.maxKiB;
  return kdynMedian < target.maxMs;
}

export function describeTarget(t: Target): string {
  if (t.kind === 'ratio') return `<=${t.max.toFixed(2)}x`;
  if (t.kind === 'size') return `<${t.maxKiB} KiB`;
  return `<${t.maxMs} ms`;
}

export type ServerMode = 'local' | 'real';

export interface BenchArgs {
  cases: string[];
  json?: string;
  runs: number;
  warmup: number;
  list: boolean;
  help: boolean;
  /** Which API server the cases run against: the project's local one (default) or a real kube-apiserver. */
  server: ServerMode;
  /** Real mode: how many CRD groups the "crds" cluster gets. */
  crdGroups: number;
  /** How long a soak case runs (`--minutes`; the case's own default otherwise). */
  minutes?: number;
}

export const DEFAULT_RUNS = 15;
export const DEFAULT_CRD_GROUPS = 1000;

/**
 * `[--case NAME]... [--json FILE] [--runs N] [--warmup N] [--list] [--server local|real] [--crd-groups N]`;
 * `--case a,b` also works.
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const out: BenchArgs = { cases: [], runs: DEFAULT_RUNS, warmup: 2, list: false, help: false, server: 'local', crdGroups: DEFAULT_CRD_GROUPS };
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    const eq = tok.indexOf('=');
    const name = tok.startsWith('--') && eq > 0 ? tok.slice(0, eq) : tok;
    const value = (): string => {
      if (eq > 0 && tok.startsWith('--')) return tok.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    const count = (min: number): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`${name}: expected an integer >= ${min}, got "${v}"`);
      return n;
    };
    switch (name) {
      case '--case':
      case '-c':
        out.cases.push(...value().split(',').filter((s) => s !== ''));
        break;
      case '--json':
        out.json = value();
        break;
      case '--runs':
        out.runs = count(1);
        break;
      case '--warmup':
        out.warmup = count(1);
        break;
      case '--server': {
        const v = value();
        if (v !== 'local' && v !== 'real') throw new Error(`--server: expected "local" or "real", got "${v}"`);
        out.server = v;
        break;
      }
      case '--crd-groups':
        out.crdGroups = count(1);
        break;
      case '--minutes':
        out.minutes = count(1);
        break;
      case '--list':
        out.list = true;
        break;
      case '--help':
      case '-h':
        out.help = true;
        break;
      default:
        throw new Error(`unknown argument "${tok}" (see --help)`);
    }
  }
  return out;
}

/**
 * `NAME` matches exactly; `NAME*` matches a prefix. An opt-in case (a long one) is selected only by
 * its exact name, never by default or by a prefix.
 */
export function selectCases<T extends { name: string; optIn?: boolean }>(all: readonly T[], wanted: readonly string[]): T[] {
  if (wanted.length === 0) return all.filter((c) => !c.optIn);
  const unknown = wanted.filter((w) => !all.some((c) => matches(c, w)));
  if (unknown.length) {
    throw new Error(`unknown case ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${all.map((c) => c.name).join(', ')}`);
  }
  return all.filter((c) => wanted.some((w) => matches(c, w)));
}

function matches(c: { name: string; optIn?: boolean }, pattern: string): boolean {
  if (pattern.endsWith('*')) return !c.optIn && c.name.startsWith(pattern.slice(0, -1));
  return c.name === pattern;
}

/** One decimal; three below 1 (e.g. a cached request or a lookup, in ms). */
export const fmt = (v: number): string => v.toFixed(Math.abs(v) < 1 ? 3 : 1);

/** One line per case, for the console. */
export function formatResult(r: CaseResult): string {
  const head = `${r.name.padEnd(30)} [${r.server}]`;
  if (r.status !== 'ok') return `${head} ${r.status === 'skipped' ? 'skipped' : 'not ready'}: ${r.reason ?? ''}`;
  const k = r.kdyn!;
  let line = `${head} kdyn ${fmt(k.median)} ${r.unit} (min ${fmt(k.min)})`;
  if (r.baseline) {
    const b = r.baseline;
    line += `  baseline ${fmt(b.median)} ${r.unit} (min ${fmt(b.min)})`;
    if (r.ratio !== undefined) line += `  ratio ${r.ratio.toFixed(2)}x`;
  }
  line += `  target ${describeTarget(r.target)}  ${r.pass === undefined ? '?' : r.pass ? 'pass' : 'MISS'}`;
  return line;
}

/** A Markdown table of all results (for the README and --json users). */
export function markdownTable(results: readonly CaseResult[]): string {
  const rows = ['| case | server | kdyn median (min) | baseline median (min) | ratio | target | result |', '|---|---|---|---|---|---|---|'];
  for (const r of results) {
    if (r.status !== 'ok') {
      rows.push(`| ${r.name} | ${r.server} | ${r.status}: ${r.reason ?? ''} | | | ${describeTarget(r.target)} | |`);
      continue;
    }
    const k = r.kdyn!;
    const b = r.baseline;
    const cell = (s: SideResult) => `${fmt(s.median)} ${r.unit} (${fmt(s.min)})`;
    rows.push(
      `| ${r.name} | ${r.server} | ${cell(k)} | ${b ? cell(b) : '-'} | ${r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : '-'} | ${describeTarget(r.target)} | ${r.pass ? 'pass' : 'miss'} |`,
    );
  }
  return rows.join('\n');
}
