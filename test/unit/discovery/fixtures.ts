/** Reads the recorded discovery exchanges copied into test/fixtures/discovery/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../support/cli.js';

export function fixturePath(name: string): string {
  return join(repoRoot(), 'test', 'fixtures', 'discovery', name);
}

export interface RecordedExchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses a `NN-name.http` recording: `### METHOD PATH`, `### request-header: ...`, status line, headers, body. */
export function readExchange(name: string): RecordedExchange {
  const text = readFileSync(fixturePath(name), 'utf8');
  const lines = text.split('\n');
  let i = 0;
  const [, method = '', path = ''] = /^### (\S+) (\S+)/.exec(lines[i++] ?? '') ?? [];
  const requestHeaders: Record<string, string> = {};
  while (lines[i]?.startsWith('### request-header: ')) {
    const h = lines[i++]!.slice('### request-header: '.length);
    const c = h.indexOf(':');
    requestHeaders[h.slice(0, c).toLowerCase()] = h.slice(c + 1).trim();
  }
  const status = Number(/^HTTP\/\S+ (\d+)/.exec(lines[i++] ?? '')?.[1]);
  const headers: Record<string, string> = {};
  while (i < lines.length && lines[i] !== '') {
    const c = lines[i]!.indexOf(':');
    headers[lines[i]!.slice(0, c).toLowerCase()] = lines[i]!.slice(c + 1).trim();
    i++;
  }
  return { method, path, requestHeaders, status, headers, body: lines.slice(i + 1).join('\n').trim() };
}

export function readJSON(name: string): unknown {
  return name.endsWith('.http') ? JSON.parse(readExchange(name).body) : JSON.parse(readFileSync(fixturePath(name), 'utf8'));
}
