/**
 * Discovery fixtures: the recorded v1.32 exchanges (test/fixtures/exchanges/, read with the one
 * `.http` parser in test/support/exchanges.ts) and the files of test/fixtures/discovery/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir, loadExchange, type Exchange } from '../../support/exchanges.js';

/** A file of test/fixtures/discovery/ (aggregated documents, kubectl's api-resources goldens). */
export function fixturePath(name: string): string {
  return join(fixturesDir(), 'discovery', name);
}

/** A recorded exchange by file name (`07-aggregated-apis.http`). */
export function readExchange(name: string): Exchange {
  return loadExchange(name);
}

/** The JSON body of a recorded exchange (`NN-name.http`), or a JSON file of test/fixtures/discovery/. */
export function readJSON(name: string): unknown {
  return name.endsWith('.http') ? JSON.parse(readExchange(name).body) : JSON.parse(readFileSync(fixturePath(name), 'utf8'));
}
