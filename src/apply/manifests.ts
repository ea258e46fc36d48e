/**
 * Manifest decoding (kubectl `CR/pkg/resource/visitor.go` StreamVisitor + FlattenListVisitor): one
 * source's text -> its objects. Multi-document YAML (js-yaml), JSON, `kind: List` flattened, empty
 * and `null` documents skipped. Pure: no I/O. Every problem is collected (syntax errors with file,
 * line and column; documents without apiVersion, kind or metadata.name by file and document index)
 * so the caller can refuse the whole input before sending anything.
 */
import { loadAll, YAMLException } from 'js-yaml';
import { parseManifestStream } from '../core/yaml-fast.js';
import { KdynError } from '../core/errors.js';
import { jsonScan } from './json-locate.js';
import { pathSegmentProblem } from '../dynamic/url.js';
import type { Unstructured } from '../core/unstructured.js';

/** One object to apply and where it came from. */
export interface Manifest {
  /** The file as given on the command line (or found in a directory), `STDIN`, or a caller's label. */
  source: string;
  /** 1-based position of the YAML/JSON document in its source (empty documents count). */
  document: number;
  /** 1-based position in a flattened `kind: List` document. */
  item?: number;
  object: Unstructured;
}

/** Invalid input: every problem found, one line each. Nothing was sent to the server. */
export class ManifestError extends KdynError {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0]! : `${problems.length} problems in the input:\n${problems.join('\n')}`);
  }
}

/** `"m.yaml" document 3`, `"m.yaml" document 2, item 4`. */
export function describeOrigin(m: Pick<Manifest, 'source' | 'document' | 'item'>): string {
  return `${JSON.stringify(m.source)} document ${m.document}${m.item !== undefined ? `, item ${m.item}` : ''}`;
}

/**
 * Decodes one source. Returns the objects in order, and the problems found (syntax errors stop at
 * the first one in a source, as a YAML stream cannot be resynchronised reliably; field problems are
 * reported for every document).
 */
export function decodeManifests(text: string, source: string): { manifests: Manifest[]; problems: string[] } {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let docs: unknown[];
  try {
    docs = parseDocuments(text, source);
  } catch (e) {
    return { manifests: [], problems: [syntaxProblem(e, source)] };
  }
  const manifests: Manifest[] = [];
  const problems: string[] = [];
  docs.forEach((doc, i) => {
    const document = i + 1;
    if (doc === null || doc === undefined) return;
    if (typeof doc !== 'object' || Array.isArray(doc)) {
      problems.push(`error validating ${describeOrigin({ source, document })}: not a Kubernetes object (a ${Array.isArray(doc) ? 'list' : typeof doc})`);
      return;
    }
    const obj = doc as Unstructured;
    if (isList(obj)) {
      const items = obj.items as unknown[];
      const itemKind = typeof obj.kind === 'string' && obj.kind !== 'List' ? obj.kind.slice(0, -4) : undefined;
      items.forEach((it, j) => {
        if (it === null || it === undefined) return;
        const origin = { source, document, item: j + 1 };
        if (typeof it !== 'object' || Array.isArray(it)) {
          problems.push(`error validating ${describeOrigin(origin)}: not a Kubernetes object`);
          return;
        }
        let item = it as Unstructured;
        // A typed list (ConfigMapList) may leave apiVersion and kind to the list, as client-go decodes it.
        if (itemKind && item.kind === undefined) item = { kind: itemKind, ...item };
        if (itemKind && item.apiVersion === undefined && typeof obj.apiVersion === 'string') item = { apiVersion: obj.apiVersion, ...item };
        push(manifests, problems, { ...origin, object: item });
      });
      return;
    }
    push(manifests, problems, { source, document, object: obj });
  });
  return { manifests, problems };
}

/** What a manifest lacks, kubectl-style (`apiVersion not set`, ...), or a name no URL can hold; [] when complete. */
export function missingFields(obj: Unstructured): string[] {
  const out: string[] = [];
  for (const f of ['apiVersion', 'kind'] as const) {
    const v = obj[f];
    if (v !== undefined && v !== null && typeof v !== 'string') out.push(`${f} isn't string type`);
    else if (!v) out.push(`${f} not set`);
  }
  const md = obj.metadata;
  if (md !== undefined && (md === null || typeof md !== 'object' || Array.isArray(md))) out.push('metadata is not an object');
  else if (md?.name !== undefined && md.name !== null && typeof md.name !== 'string') out.push("metadata.name isn't string type");
  else if (typeof md?.name !== 'string' || md.name === '') out.push(typeof md?.generateName === 'string' && md.generateName ? 'metadata.name not set (generateName cannot be applied)' : 'metadata.name not set');
  else if (pathSegmentProblem(md.name)) out.push(`invalid metadata.name ${JSON.stringify(md.name)}: ${pathSegmentProblem(md.name)}`);
  if (md && typeof md === 'object' && md.namespace !== undefined) {
    if (typeof md.namespace !== 'string') out.push('metadata.namespace is not a string');
    else if (md.namespace !== '' && pathSegmentProblem(md.namespace)) out.push(`invalid metadata.namespace ${JSON.stringify(md.namespace)}: ${pathSegmentProblem(md.namespace)}`);
  }
  return out;
}

/** Throws ManifestError naming every manifest that lacks apiVersion, kind or metadata.name (for library input). */
export function assertComplete(manifests: readonly Manifest[]): void {
  const problems = manifests.flatMap((m) => {
    const missing = missingFields(m.object);
    return missing.length ? [`error validating ${describeOrigin(m)}: ${missing.join(', ')}`] : [];
  });
  if (problems.length) throw new ManifestError(problems);
}

function push(manifests: Manifest[], problems: string[], m: Manifest): void {
  const missing = missingFields(m.object);
  if (missing.length) problems.push(`error validating ${describeOrigin(m)}: ${missing.join(', ')}`);
  else manifests.push(m);
}

function isList(obj: Unstructured): boolean {
  return Array.isArray(obj.items) && typeof obj.kind === 'string' && obj.kind.endsWith('List') && obj.metadata?.name === undefined;
}

/**
 * As kubectl's YAMLOrJSONDecoder: text whose first non-space character is `{` is a stream of JSON
 * values (JSON.parse, one value after another; a syntax error or a duplicate key is reported where
 * it is); anything else is YAML.
 */
function parseDocuments(text: string, source: string): unknown[] {
  if (/\S/.exec(text)?.[0] === '{') {
    const r = parseJSONStream(text);
    if (r instanceof JSONSyntaxError) throw r;
    return r;
  }
  // The block-style YAML tools write is read by ../core/yaml-fast.ts (as js-yaml reads it, ~10x less
  // CPU: 200 ConfigMaps took js-yaml ~50 ms); anything else by js-yaml.
  // maxAliases bounds alias expansion ("billion laughs"): manifests have no use for many aliases.
  return parseManifestStream(text) ?? loadAll(text, { filename: source, maxAliases: 1000 });
}

/** Consecutive JSON values, or the first syntax error or duplicate key (a JSONSyntaxError with its offset). */
function parseJSONStream(text: string): unknown[] | JSONSyntaxError {
  const docs: unknown[] = [];
  let offset = 0;
  const value = (json: string, at: number): JSONSyntaxError | undefined => {
    const v: unknown = JSON.parse(json);
    const dup = keyCount(v) < textKeyCount(json) ? jsonScan(json, true) : undefined;
    if (dup && dup.offset >= 0) return new JSONSyntaxError(`${dup.reason} (document ${docs.length + 1})`, at + dup.offset, text);
    docs.push(v);
    return undefined;
  };
  while (offset < text.length) {
    const rest = text.slice(offset);
    const lead = rest.length - rest.trimStart().length;
    if (lead === rest.length) break;
    try {
      return value(rest, offset) ?? docs;
    } catch (e) {
      const msg = (e as Error).message;
      const at = /at position (\d+)/.exec(msg);
      const pos = at ? Number(at[1]) : undefined;
      if (pos !== undefined && /after JSON/.test(msg)) {
        try {
          const bad = value(rest.slice(0, pos), offset);
          if (bad) return bad;
        } catch {
          return new JSONSyntaxError(msg, undefined, text);
        }
        offset += pos;
        continue;
      }
      return new JSONSyntaxError(msg.split(', "')[0]!.replace(/ in JSON at position \d+.*$/, ''), offset + (pos ?? jsonScan(rest).offset), text);
    }
  }
  return docs;
}

/** Object keys in a parsed JSON value (duplicates in the text were folded into one). */
function keyCount(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keyCount(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  let n = 0;
  for (const x of Object.values(v)) n += 1 + keyCount(x);
  return n;
}

/** Object keys in valid JSON text: strings followed by `:` (outside strings there are no quotes). */
function textKeyCount(json: string): number {
  let n = 0;
  for (const m of json.matchAll(/"(?:[^"\\]|\\.)*"(\s*:)?/g)) if (m[1] !== undefined) n++;
  return n;
}

class JSONSyntaxError extends Error {
  readonly line?: number;
  readonly column?: number;
  constructor(message: string, position: number | undefined, text: string) {
    super(message);
    if (position !== undefined) {
      const before = text.slice(0, position);
      this.line = before.split('\n').length;
      this.column = position - before.lastIndexOf('\n');
    }
  }
}

function syntaxProblem(e: unknown, source: string): string {
  if (e instanceof YAMLException) {
    const where = e.mark ? ` (line ${e.mark.line + 1}, column ${e.mark.column + 1})` : '';
    return `error parsing ${JSON.stringify(source)}${where}: ${e.reason}`;
  }
  if (e instanceof JSONSyntaxError && e.line !== undefined) return `error parsing ${JSON.stringify(source)} (line ${e.line}, column ${e.column}): ${e.message}`;
  return `error parsing ${JSON.stringify(source)}: ${(e as Error).message.split('\n')[0]}`;
}
