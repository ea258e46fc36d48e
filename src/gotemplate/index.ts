/**
 * kubectl's go-template engine (`-o go-template=...`, `go-template-file=`, `template=`,
 * `templatefile=`): Go's text/template with kubectl's `exists` and `base64decode`, run once over the
 * object or kubectl's List wrapper. On an execution error kubectl writes the output so far and a
 * debugging dump to stdout, then fails with `error executing template "...": ...`; so does this.
 *
 *   const t = compileGoTemplate('{{range .items}}{{.metadata.name}}{{"\n"}}{{end}}');
 *   process.stdout.write(t.execute(list));
 *
 * The engine lives beside it in this folder: lex.ts, parse.ts, exec.ts,
 * funcs.ts and values.ts; this module is imported only when the format is used.
 */
import { KdynError } from '../core/errors.js';
import { executeGoTemplate, FUNC_NAMES, TemplateExecError } from './exec.js';
import { goQuote, parseGoTemplate, TemplateParseError, type ParsedTemplate } from './parse.js';
import { formatV } from './values.js';
import { goJSON } from '../core/go-json.js';

/** A template that does not parse, or fails on the data; `output` is what kubectl writes to stdout first. */
export class GoTemplateError extends KdynError {
  constructor(message: string, readonly output = '') {
    super(message);
  }
}

export interface GoTemplate {
  readonly template: string;
  execute(data: unknown): string;
}

export interface GoTemplateOptions {
  /** Missing keys print `<no value>` (true, kubectl's default) or fail. */
  allowMissingKeys?: boolean;
}

/** Parses a template as kubectl does; throws GoTemplateError `error parsing template TEMPLATE, REASON`. */
export function compileGoTemplate(template: string, options: GoTemplateOptions = {}): GoTemplate {
  let parsed: ParsedTemplate;
  try {
    parsed = parseGoTemplate('output', template, FUNC_NAMES);
  } catch (e) {
    if (e instanceof TemplateParseError) throw new GoTemplateError(`error parsing template ${template}, ${e.message}`);
    throw e;
  }
  return {
    template,
    execute(data: unknown): string {
      try {
        return executeGoTemplate(parsed, data, { allowMissingKeys: options.allowMissingKeys ?? true });
      } catch (e) {
        if (!(e instanceof TemplateExecError)) throw e;
        const dump =
          `Error executing template: ${e.message}. Printing more information for debugging the template:\n` +
          `\ttemplate was:\n\t\t${template}\n` +
          `\traw data was:\n\t\t${goJSON(data)}\n` +
          `\tobject given to template engine was:\n\t\t${formatV(data)}\n\n`;
        throw new GoTemplateError(`error executing template ${goQuote(template)}: ${e.message}`, e.output + dump);
      }
    },
  };
}
