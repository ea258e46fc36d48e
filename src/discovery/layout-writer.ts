/**
 * Entry point of the background writer of kubectl's discovery layout (see write-behind.ts):
 * `node layout-writer.js <cache root> <server URL>`. Started detached by startLayoutWriter() with no
 * stdio and no credentials; it only reads kdyn's combined file under the root and writes kubectl's
 * files under the root, and exits quietly (status 0) whatever happens.
 * Built as its own small bundle, dist/cli/layout-writer.js beside the CLI's bin.js (scripts/build.mjs).
 */
import type { Logger } from '../core/log.js';
import { writeLayoutFromCombined } from './write-behind.js';

// The writer has nowhere to print to (stdio is ignored).
const quiet: Logger = { level: 0, enabled: () => false, info() {}, warn() {} };

const [root, server] = process.argv.slice(2);
if (root && server) {
  writeLayoutFromCombined(root, server, quiet).then(
    () => undefined,
    () => undefined,
  );
}
