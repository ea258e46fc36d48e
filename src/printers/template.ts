/**
 * The template half of `-o`: reading `-o jsonpath-file=`,
 * `go-template-file=` and `custom-columns-file=`, and compiling a JSONPath, Go template or
 * custom-columns spec once for the whole run. The engines (src/jsonpath/, src/gotemplate/,
 * ./custom-columns.ts) are imported only when their format is used.
 */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { IO } from '../core/io.js';
import { KdynError, UsageError } from '../core/errors.js';
import { pathError } from '../core/fs-errors.js';
import type { CompiledTemplate, TemplateFormat } from './types.js';

export type { CompiledTemplate, TemplateFormat } from './types.js';

/** The template text of a jsonpath, go-template or custom-columns format (read from its file if one was given). */
export async function readTemplate(format: TemplateFormat, io: IO): Promise<string> {
  if (format.type === 'jsonpath') {
    if (format.file === undefined) return format.template ?? '';
    return readFileArg(format.file, io, 'jsonpath-file');
  }
  if (format.type === 'go-template') {
    if (format.file === undefined) return format.template ?? '';
    try {
      return await readFile(resolvePath(io.cwd, format.file), 'utf8');
    } catch (e) {
      // kubectl: `error reading --template FILE, open FILE: no such file or directory`
      throw new KdynError(`error reading --template ${format.file}, ${pathError(format.file, e)}`);
    }
  }
  if (format.file === undefined) return format.spec ?? '';
  return readFileArg(format.file, io, 'custom-columns-file');
}

async function readFileArg(file: string, io: IO, what: string): Promise<string> {
  try {
    return await readFile(resolvePath(io.cwd, file), 'utf8');
  } catch (e) {
    throw new KdynError(`error reading ${what} ${JSON.stringify(file)}: ${pathError(file, e)}`);
  }
}

/** Runs `fn`, which parses templates only: its errors (JSONPathError, CustomColumnsError, ...) become UsageErrors. */
export async function asUsageError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw e instanceof KdynError && !(e instanceof UsageError) ? new UsageError(e.message) : e;
  }
}

/**
 * Compiles `text` as `format` says. Throws the engine's error (JSONPathError, GoTemplateError,
 * CustomColumnsError) for a template that does not parse; the caller decides whether that is a usage error.
 */
export async function compileTemplate(format: TemplateFormat, text: string, allowMissingKeys: boolean): Promise<CompiledTemplate> {
  if (format.type === 'jsonpath') {
    const { compileJSONPath } = await import('../jsonpath/index.js');
    const t = compileJSONPath(text, { allowMissingKeys });
    return { type: 'value', run: format.asJSON ? (data) => t.executeAsJSON(data) : (data) => t.execute(data) };
  }
  if (format.type === 'go-template') {
    const { compileGoTemplate } = await import('../gotemplate/index.js');
    const t = compileGoTemplate(text, { allowMissingKeys });
    return { type: 'value', run: (data) => t.execute(data) };
  }
  const cc = await import('./custom-columns.js');
  const columns = format.file !== undefined ? cc.parseCustomColumnsTemplate(text) : cc.parseCustomColumnsSpec(text);
  return { type: 'columns', columns, templates: cc.compileColumns(columns) };
}
