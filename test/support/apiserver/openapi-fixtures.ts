/**
 * The recorded OpenAPI v3 documents of test/fixtures/openapi-v3/ (a real v1.32 server's, trimmed;
 * see its README), by document key (`api/v1`, `apis/apps/v1`), for `ServerOptions.openapiDocuments`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Obj } from './types.js';

const FILES: Readonly<Record<string, string>> = { 'api/v1': 'api-v1.json.gz', 'apis/apps/v1': 'apis-apps-v1.json.gz' };

export function recordedOpenApiDocuments(repoRoot: string): Map<string, Obj> {
  const dir = join(repoRoot, 'test', 'fixtures', 'openapi-v3');
  return new Map(Object.entries(FILES).map(([key, file]) => [key, JSON.parse(gunzipSync(readFileSync(join(dir, file))).toString('utf8')) as Obj]));
}
