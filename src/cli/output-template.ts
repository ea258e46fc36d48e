/**
 * The template half of `-o` for `get` and `watch`: kubectl's `--template` flag, reading
 * `-o jsonpath-file=`, `go-template-file=` and `custom-columns-file=`, and compiling a JSONPath or Go
 * template before any request (a template that does not parse is a usage error, exit 2).
 */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { IO } from '../core/io.js';
import { KdynError, UsageError } from '../core/errors.js';
import { pathError } from '../core/fs-errors.js';
import type { OutputFormat } from '../printers/index.js';

/** kubectl's `--template`: the template of `-o go-template`, `-o jsonpath`, ... given without `=`. */
export function withTemplate(output: string | undefined, template: string | undefined): string | undefined {
  return output !== undefined && template !== undefined && !output.includes('=') ? `${output}=${template}` : output;
}

/** The template text of a jsonpath, go-template or custom-columns format (read from its file if one was given). */
export async function readTemplate(format: OutputFormat, io: IO): Promise<string | undefined> {
  if (format.type === 'jsonpath') {
    if (format.file === undefined) return format.template;
    return readFileArg(format.file, io, 'jsonpath-file');
  }
  if (format.type === 'go-template') {
    if (format.file === undefined) return format.template;
    try {
      return await readFile(resolvePath(io.cwd, format.file), 'utf8');
    } catch (e) {
      // kubectl: `error reading --template FILE, open FILE: no such file or directory`
      throw new KdynError(`error reading --template ${format.file}, ${pathError(format.file, e)}`);
    }
  }
  if (format.type === 'custom-columns') {
    if (format.file === undefined) return format.spec;
    return readFileArg(format.file, io, 'custom-columns-file');
  }
  return undefined;
}

async function readFileArg(file: string, io: IO, what: string): Promise<string> {
  try {
    return await readFile(resolvePath(io.cwd, file), 'utf8');
  } catch (e) {
    throw new KdynError(`error reading ${what} ${JSON.stringify(file)}: ${pathError(file, e)}`);
  }
}

/** Runs `fn`, which parses templates only: its errors (JSONPathError, CustomColumnsError) become UsageErrors. */
export async function asUsageError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw e instanceof KdynError && !(e instanceof UsageError) ? new UsageError(e.message) : e;
  }
}

/**
 * A JSONPath or Go template compiled once, applied to one value at a time (a watch prints each event
 * through it, as kubectl's template printers do). A template that does not parse is a UsageError.
 */
export async function compileValueTemplate(format: Extract<OutputFormat, { type: 'jsonpath' | 'go-template' }>, text: string, allowMissingKeys: boolean): Promise<(data: unknown) => string> {
  return asUsageError(async () => {
    if (format.type === 'jsonpath') {
      const { compileJSONPath } = await import('../printers/jsonpath/index.js');
      const t = compileJSONPath(text, { allowMissingKeys });
      return format.asJSON ? (data) => t.executeAsJSON(data) : (data) => t.execute(data);
    }
    const { compileGoTemplate } = await import('../printers/go-template/index.js');
    const t = compileGoTemplate(text, { allowMissingKeys });
    return (data) => t.execute(data);
  });
}
