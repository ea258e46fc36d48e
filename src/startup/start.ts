/**
 * The first code of every kdyn run (bundled to dist/cli/start.js, required by bin/kdyn): the code
 * cache for the bundle, then the CLI itself (dist/cli/bin.js, src/cli/bin.ts). CommonJS at run time.
 * __KDYN_COMMANDS__ is the command table's names (src/cli/spec.ts), put in by scripts/build.mjs: the
 * code cache keeps its entries per command.
 */
import { useCodeCache } from './code-cache.js';

declare const __KDYN_COMMANDS__: readonly string[];

useCodeCache(__dirname, __KDYN_COMMANDS__);
require('./bin.js');
