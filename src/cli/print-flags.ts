/**
 * The printing flags read into the output module's typed options (kubectl's `get_flags.go`
 * `PrintFlags`, whose `ToPrinter()` turns flags into a printer): `-o` (with `--template`),
 * `--no-headers`, `--show-labels`, `-L`, `--sort-by`, `--show-kind`, `--show-managed-fields`,
 * `--allow-missing-template-keys`. The output module (../printers/) knows formats, never flags or
 * commands: a command hands it one of these options.
 */
import { UsageError } from '../core/errors.js';
import { parseOutputFormat, parseWatchFormat, type ApiResourcesOutput, type ApplyOutput, type GetOutput, type WatchOutput } from '../printers/index.js';
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
