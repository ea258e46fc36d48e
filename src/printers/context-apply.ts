/**
 * apply's printer (../printers/apply.ts) decorated with the context its objects were applied to
 * (issue 24; docs/fleet.md). For a fleet, each context's objects are printed together, in the
 * contexts' order: `CONTEXT/kind/name serverside-applied` (`-o name`: `CONTEXT/kind/name`; `-o
 * jsonl`: `{"context":C,"object":O}`; `-o json|yaml`: a List per context with its `context`, then
 * each ApplySet-pruned object in a `{"context":C,"object":O}` document); a
 * client dry run's text output stays one YAML stream of requests, the context in each request's
 * comment (`# context "C": PATCH ...`). Its stderr lines name the context (`error: context "C": ...`,
 * `context "C": <summary>`). Without a fleet, every call goes to the printer as it is: each object
 * as it comes, kubectl's lines.
 */
import type { IO } from '../core/io.js';
import { withoutManagedFields, type Unstructured } from '../core/unstructured.js';
import { createPrinter, type AppliedObject, type ApplyOutput, type ApplyPrintContext } from './index.js';
import { requestDocument } from './apply.js';
import { prunedText } from './applied-list.js';
import { contextErrorLine, contextList, jsonlRecord } from './envelopes.js';

/** An ApplyPrinter whose calls say which context they are about. */
export interface ContextApplyPrinter {
  /** Objects of one context (a fleet: all of them at once, in input order; one context: as they come). */
  page(context: string, results: readonly AppliedObject[]): void;
  /** One context's objects are all given (one context: what the printer held back, `-o json|yaml`). */
  endContext(context: string): void;
  /** Other stdout lines of one context, as they are (an ApplySet's pruned objects, already naming the context). */
  text(context: string, text: string): void;
  /**
   * An ApplySet's pruned objects in the object formats (`-o json|yaml|jsonl`; nothing for the line
   * formats), after the context's applied objects: one context as kubectl (./applied-list.ts); a
   * fleet, each in its `{context, object}` record, as jsonl's lines.
   */
  pruned(context: string, objects: readonly Unstructured[]): void;
  /** An error line of one context, ending in a newline (`error: ...`, as one context alone writes it). */
  error(context: string, line: string): void;
  /** One context's summary line. */
  summary(context: string, line: string): void;
}

/** apply's printer, decorated for a fleet with `showContext`. */
export async function createContextApplyPrinter(o: ApplyOutput, print: ApplyPrintContext, showContext: boolean, io: IO): Promise<ContextApplyPrinter> {
  const shape = o.format;
  const encode = shape === 'json' ? (await import('./json.js')).toJSON : shape === 'yaml' || (print.clientDryRun && shape === 'text') ? (await import('./yaml.js')).toYAML : undefined;
  const objectEncode = shape === 'json' || shape === 'yaml' ? encode : undefined;
  const shown = (objects: readonly Unstructured[]) => (o.showManagedFields ? objects : objects.map(withoutManagedFields));
  if (!showContext) {
    const printer = await createPrinter(o, print, io);
    return {
      page: (_context, results) => printer.page(results),
      endContext: () => printer.end(),
      text: (_context, text) => io.stdout.write(text),
      pruned: (_context, objects) => io.stdout.write(prunedText(shape, shown(objects), objectEncode)),
      error: (_context, line) => io.stderr.write(line),
      summary: (_context, line) => io.stderr.write(`${line}\n`),
    };
  }
  const dry = print.serverDryRun ? ' (server dry run)' : '';
  let docs = 0;
  return {
    page(context, results) {
      let text = '';
      const objects: Unstructured[] = [];
      for (const { ref, object, unchanged, request } of results) {
        if (!print.clientDryRun && !o.showManagedFields && object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
        if (request && shape === 'text') text += (docs++ > 0 ? '---\n' : '') + requestDocument(request, encode!(object), `context ${JSON.stringify(context)}: `);
        else if (shape === 'text') text += `${context}/${ref} ${unchanged ? 'unchanged' : 'serverside-applied'}${dry}\n`;
        else if (shape === 'name') text += `${context}/${ref}\n`;
        else if (shape === 'jsonl') text += jsonlRecord(context, object);
        else objects.push(object);
      }
      if (shape === 'json' || shape === 'yaml') text = (docs++ > 0 && shape === 'yaml' ? '---\n' : '') + encode!(contextList(context, objects));
      io.stdout.write(text);
    },
    endContext: () => undefined,
    text: (_context, text) => io.stdout.write(text),
    pruned(context, objects) {
      let text = '';
      for (const object of shown(objects)) {
        if (shape === 'jsonl') text += jsonlRecord(context, object);
        else if (objectEncode) text += (docs++ > 0 && shape === 'yaml' ? '---\n' : '') + objectEncode({ context, object });
      }
      io.stdout.write(text);
    },
    error: (context, line) => io.stderr.write(contextErrorLine(context, line)),
    summary: (context, line) => io.stderr.write(`context ${JSON.stringify(context)}: ${line}\n`),
  };
}
