/**
 * Parser for the recorded exchanges (test/fixtures/exchanges/NN-name.http, copied from the v1.32
 * recordings): `### METHOD PATH`, `### request-header: Name: value` lines, the status line, the
 * response headers, a blank line, and the body (pretty JSON, or raw watch-stream lines).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Exchange {
  /** File name without `.http`, e.g. `08-aggregated-apis-not-modified`. */
  name: string;
  method: string;
  /** Path with its query string, as recorded. */
  path: string;
  /** Request headers as recorded (names lower-cased); the recordings leave out Authorization. */
  requestHeaders: Record<string, string>;
  status: number;
  /** Response headers (names lower-cased). */
  responseHeaders: Record<string, string>;
  /** The body as recorded ('' when there is none). */
  body: string;
  /** The body parsed as one JSON document, when it is one. */
  json?: unknown;
}

/** Parses the text of one `.http` recording. */
export function parseExchange(text: string, name = ''): Exchange {
  const lines = text.split('\n');
  let i = 0;
  const first = /^### (\S+) (\S+)\s*$/.exec(lines[i++] ?? '');
  if (!first) throw new Error(`exchange ${name || '(text)'}: first line is not "### METHOD PATH"`);
  const requestHeaders: Record<string, string> = {};
  for (; i < lines.length && lines[i]!.startsWith('### request-header: '); i++) {
    const [k, v] = splitHeader(lines[i]!.slice('### request-header: '.length));
    requestHeaders[k] = v;
  }
  const statusLine = /^HTTP\/[\d.]+ (\d{3})/.exec(lines[i++] ?? '');
  if (!statusLine) throw new Error(`exchange ${name || '(text)'}: line ${i} is not an HTTP status line`);
  const responseHeaders: Record<string, string> = {};
  for (; i < lines.length && lines[i] !== ''; i++) {
    const [k, v] = splitHeader(lines[i]!);
    responseHeaders[k] = responseHeaders[k] === undefined ? v : `${responseHeaders[k]}, ${v}`;
  }
  const body = lines.slice(i + 1).join('\n');
  const exchange: Exchange = { name, method: first[1]!, path: first[2]!, requestHeaders, status: Number(statusLine[1]), responseHeaders, body };
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      exchange.json = JSON.parse(trimmed);
    } catch {
      // a watch stream: several JSON documents, one per line
    }
  }
  return exchange;
}

function splitHeader(line: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon <= 0) throw new Error(`exchange header line without a colon: ${line.slice(0, 60)}`);
  return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
}

/** test/fixtures, found from this module (works from test/ and from build/test/). */
export function fixturesDir(): string {
  for (const rel of ['../fixtures', '../../../test/fixtures']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'exchanges', '01-version.http'))) return dir;
  }
  throw new Error(`test fixtures not found near ${fileURLToPath(import.meta.url)}`);
}

/** test/fixtures/exchanges: copies of the recorded v1.32 exchanges. */
export function exchangesDir(): string {
  return join(fixturesDir(), 'exchanges');
}

/** Loads a recording by number (`8`) or file name (`08-aggregated-apis-not-modified`). */
export function loadExchange(which: number | string, dir = exchangesDir()): Exchange {
  const prefix = typeof which === 'number' ? `${String(which).padStart(2, '0')}-` : which.replace(/\.http$/, '');
  const file = readdirSync(dir).find((f) => f.endsWith('.http') && (f.startsWith(prefix) || f === `${prefix}.http`));
  if (!file) throw new Error(`recorded exchange ${which} not found in ${dir}`);
  return parseExchange(readFileSync(join(dir, file), 'utf8'), file.replace(/\.http$/, ''));
}

/**
 * The shape of a JSON value as a set of `path:type` lines (`.items[].metadata.name:string`): keys and
 * value types, recursively, with array elements merged under `[]`. Values themselves (uids,
 * timestamps, resourceVersions, counts) do not matter.
 */
export function shapeOf(value: unknown, path = '', out = new Set<string>()): Set<string> {
  if (value === null) out.add(`${path}:null`);
  else if (Array.isArray(value)) {
    out.add(`${path}:array`);
    for (const v of value) shapeOf(v, `${path}[]`, out);
  } else if (typeof value === 'object') {
    out.add(`${path}:object`);
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) shapeOf(v, `${path}.${k}`, out);
  } else out.add(`${path}:${typeof value}`);
  return out;
}

/** Shape lines the recording has and the answer lacks (`- `), and the reverse (`+ `). Empty = same shape. */
export function shapeDiff(recorded: unknown, actual: unknown, ignore: RegExp[] = []): string[] {
  const a = shapeOf(recorded);
  const b = shapeOf(actual);
  const keep = (line: string) => !ignore.some((re) => re.test(line));
  return [...[...a].filter((l) => !b.has(l) && keep(l)).map((l) => `- ${l}`), ...[...b].filter((l) => !a.has(l) && keep(l)).map((l) => `+ ${l}`)];
}
