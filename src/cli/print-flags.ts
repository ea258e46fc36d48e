/**
 * The printing flags read into the output module's typed options (kubectl's `get_flags.go`
 * `PrintFlags`, whose `ToPrinter()` turns flags into a printer): `-o` (with `--template`),
 * `--no-headers`, `--show-labels`, `-L`, `--sort-by`, `--show-kind`, `--show-managed-fields`,
 * `--allow-missing-template-keys`. The output module (../printers/) knows formats, never flags or
 * commands: a command hands it one of these options.
 */
import { UsageError } from '../core/errors.js';
import type { ApiResourcesOutput, ApplyOutput, GetOutput, OutputFormat, TemplateFormat, WatchFormat, WatchOutput } from '../printers/index.js';
import type { ParsedArgs } from './command-types.js';

type Flags = ParsedArgs['flags'];

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** kubectl's `--template`: the template of `-o go-template`, `-o jsonpath`, ... given without `=`. */
export function withTemplate(output: string | undefined, template: string | undefined): string | undefined {
  return output !== undefined && template !== undefined && !output.includes('=') ? `${output}=${template}` : output;
}

/** `-o` with `--template` folded in. */
const outputFlag = (f: Flags) => withTemplate(str(f.output), str(f.template));

/** `get`: objects, or the server's Tables (the default and wide output). */
export function getPrintOptions(f: Flags): GetOutput {
  const format = parseOutputFormat(outputFlag(f));
  return {
    kind: 'objects',
    format,
    noHeaders: f['no-headers'] === true,
    showLabels: f['show-labels'] === true,
    labelColumns: Array.isArray(f['label-columns']) ? f['label-columns'].filter((l): l is string => typeof l === 'string' && l !== '') : [],
    sortBy: str(f['sort-by']),
    showKind: f['show-kind'] === true,
    showManagedFields: f['show-managed-fields'] === true,
    allowMissingKeys: f['allow-missing-template-keys'] !== false,
    template: format.type === 'jsonpath' || format.type === 'go-template' || format.type === 'custom-columns' ? { format } : undefined,
  };
}

/** `watch` and `get -w`: events. */
export function watchPrintOptions(f: Flags): WatchOutput {
  const output = outputFlag(f);
  const { format, template } = parseWatchFormat(output);
  return {
    kind: 'events',
    format,
    explicit: output !== undefined,
    noHeaders: f['no-headers'] === true,
    showManagedFields: f['show-managed-fields'] === true,
    allowMissingKeys: f['allow-missing-template-keys'] !== false,
    template: template && { format: template },
  };
}

/** `api-resources`: the rows of discovery. */
export function apiResourcesPrintOptions(f: Flags): ApiResourcesOutput {
  const format = typeof f.output === 'string' ? f.output : '';
  if (format !== '' && format !== 'wide' && format !== 'name' && format !== 'json' && format !== 'yaml') throw new UsageError(`--output ${format} is not available`);
  return { kind: 'resources', format, noHeaders: f['no-headers'] === true };
}

/** `apply`: the applied objects. */
export function applyPrintOptions(f: Flags): ApplyOutput {
  return { kind: 'applied', format: (str(f.output) ?? 'text') as ApplyOutput['format'], showManagedFields: f['show-managed-fields'] === true };
}

// `-o` as kubectl reads it: each family of printers claims its formats (kubectl's JSONYamlPrintFlags,
// NamePrintFlags, JSONPathPrintFlags, GoTemplatePrintFlags, CustomColumnsPrintFlags,
// HumanPrintFlags, tried in turn by PrintFlags.ToPrinter()); a format no family claims is a usage error.

export const ALLOWED_FORMATS = [
  'custom-columns', 'custom-columns-file', 'go-template', 'go-template-file', 'json', 'jsonl', 'jsonpath', 'jsonpath-as-json',
  'jsonpath-file', 'name', 'template', 'templatefile', 'wide', 'yaml',
];

/** One family: the format for `-o KEY[=VALUE]` (`assigned`: there was an `=`), undefined when not its own. */
type FormatFamily = (key: string, value: string, assigned: boolean) => OutputFormat | undefined;

const needs = (value: string, what: string) => {
  if (!value) throw new UsageError(what);
  return value;
};

const FAMILIES: readonly FormatFamily[] = [
  // The table: the default, and -o wide.
  (key, _v, assigned) => (assigned ? undefined : key === '' ? { type: 'table', wide: false } : key === 'wide' ? { type: 'table', wide: true } : undefined),
  (key, _v, assigned) => (!assigned && (key === 'name' || key === 'json' || key === 'yaml' || key === 'jsonl') ? { type: key } : undefined),
  (key, value) => {
    if (key === 'jsonpath') return { type: 'jsonpath', template: needs(value, 'template format specified but no template given') };
    if (key === 'jsonpath-file') return { type: 'jsonpath', file: needs(value, 'template format specified but no template file given') };
    if (key === 'jsonpath-as-json') return { type: 'jsonpath', template: needs(value, 'template format specified but no template given'), asJSON: true };
    return undefined;
  },
  (key, value) => {
    if (key === 'go-template' || key === 'template') return { type: 'go-template', template: needs(value, 'template format specified but no template given') };
    if (key === 'go-template-file' || key === 'templatefile') return { type: 'go-template', file: needs(value, 'template format specified but no template given') };
    return undefined;
  },
  (key, value) => {
    if (key === 'custom-columns') return { type: 'custom-columns', spec: needs(value, 'custom-columns format specified but no custom columns given') };
    if (key === 'custom-columns-file') return { type: 'custom-columns', file: needs(value, 'custom-columns-file format specified but no file given') };
    return undefined;
  },
];

/** `-o` as kubectl reads it (`jsonpath=TEMPLATE`, `custom-columns-file=FILE`, ...). Throws UsageError otherwise. */
export function parseOutputFormat(output: string | undefined): OutputFormat {
  const o = output ?? '';
  const eq = o.indexOf('=');
  const key = eq < 0 ? o : o.slice(0, eq);
  const value = eq < 0 ? '' : o.slice(eq + 1);
  for (const family of FAMILIES) {
    const format = family(key, value, eq >= 0);
    if (format) return format;
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: ${ALLOWED_FORMATS.join(',')}`);
}

/**
 * A watch's `-o` (undefined: not given): the plain formats print each event as is, a jsonpath or
 * go-template (with its file forms) is 'template'; anything else (custom columns included) is a UsageError.
 */
export function parseWatchFormat(output: string | undefined): { format: WatchFormat; template?: TemplateFormat } {
  const format = (output ?? 'table') as WatchFormat;
  if (WATCH_FORMATS.includes(format) && output !== 'table') return { format };
  const template = watchTemplateFormat(output);
  if (!template) throw new UsageError(`unable to match a printer suitable for the output format "${output}" with a watch, allowed formats are: ${WATCH_OUTPUTS.join(',')}`);
  return { format: 'template', template };
}

/** The plain watch formats; 'template' comes from a jsonpath or go-template -o. */
export const WATCH_FORMATS: readonly WatchFormat[] = ['table', 'wide', 'name', 'json', 'yaml', 'jsonl'];

/** What `-o` may be with a watch: get's formats without custom-columns. */
const WATCH_OUTPUTS = ALLOWED_FORMATS.filter((f) => !f.startsWith('custom-columns'));

/** A jsonpath or go-template -o (with its file forms), else undefined. */
function watchTemplateFormat(output: string | undefined): Extract<OutputFormat, { type: 'jsonpath' | 'go-template' }> | undefined {
  const key = output?.split('=', 1)[0];
  if (key === undefined || !WATCH_OUTPUTS.includes(key) || (WATCH_FORMATS as readonly string[]).includes(key)) return undefined;
  const format = parseOutputFormat(output);
  return format.type === 'jsonpath' || format.type === 'go-template' ? format : undefined;
}
