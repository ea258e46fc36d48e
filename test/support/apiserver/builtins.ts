/**
 * The recorded v1.32 built-in API (data/builtins-v1.32.json, generated from the recordings by
 * data/generate-builtins.mjs): aggregated-discovery entries as recorded, plus storageVersionHash.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Obj } from './types.js';

export interface BuiltinKind {
  group: string; // '' = the resource's own group-version (as aggregated discovery prints it)
  version: string;
  kind: string;
}

export interface BuiltinResource {
  resource: string;
  responseKind: BuiltinKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: Array<{ subresource: string; responseKind: BuiltinKind; verbs: string[] }>;
  storageVersionHash?: string;
}

export interface BuiltinData {
  /** The recorded `/version` document. */
  version: Obj;
  /** In recorded order; the core group (name '') first. Versions preferred first. */
  groups: Array<{ name: string; versions: Array<{ version: string; resources: BuiltinResource[] }> }>;
}

const FILE = 'builtins-v1.32.json';

/** Reads the data file next to this module's source (works from test/ and from build/test/). */
export function loadBuiltins(): BuiltinData {
  const candidates = [
    new URL(`./data/${FILE}`, import.meta.url),
    new URL(`../../../../test/support/apiserver/data/${FILE}`, import.meta.url),
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as BuiltinData;
  }
  throw new Error(`built-in API data ${FILE} not found next to ${fileURLToPath(import.meta.url)}`);
}
