/**
 * kdyn's entry point and its one error boundary: the only place that reads process.argv/env,
 * exits, or decides exit codes (0 success, 2 usage errors found before any request, 1 anything else).
 */
import { UsageError } from '../core/errors.js';
import { systemClock } from '../core/clock.js';
import { createLogger } from '../core/log.js';
import type { IO } from '../core/io.js';
import { VERSION } from '../core/version.js';
import { parseArgv, type ParseResult } from './parse.js';
import { createContext, type ContextOptions } from './context.js';
import { reportError } from './report-error.js';
import { findCommand } from './spec.js';
import { loadCommand } from './command-runs.js';

/** `prog`: how the user runs kdyn (`kubectl kdyn` when kubectl runs it as a plugin), for usage lines and messages. */
export async function main(argv: readonly string[], io: IO, prog = 'kdyn'): Promise<number> {
  // Fast path: no parsing, no context.
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout.write(`Client Version: v${VERSION}\n`);
    return 0;
  }
  let parsed: ParseResult;
  try {
    parsed = parseArgv(argv, prog);
  } catch (e) {
    if (e instanceof UsageError) return reportUsage(e, argv, io, prog);
    throw e;
  }
  const verbosity = typeof parsed.flags.v === 'number' ? parsed.flags.v : 0;
  if (parsed.flags.version && !parsed.flags.help) {
    io.stdout.write(`Client Version: v${VERSION}\n`);
    return 0;
  }
  if (parsed.flags.help || !parsed.spec) {
    const { renderHelp } = await import('./help.js');
    // `kdyn help nosuch`: cobra's (kubectl's) line, then the top-level help.
    const topic = !parsed.spec && argv.includes('help') ? parsed.args[0] : undefined;
    if (topic !== undefined) io.stdout.write(`Unknown help topic [\`${topic}\`]\n`);
    io.stdout.write(await renderHelp(parsed.spec, { prog }));
    return 0;
  }
  const logger = createLogger(verbosity, io.stderr);
  const ctx = createContext(parsed, io, systemClock, logger, contextOptions(io.env));
  try {
    const mod = await loadCommand(parsed.spec.name, parsed.flags);
    const code = await mod.run(parsed, ctx, io);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    return reportError(e, verbosity, io, parsed.command, prog);
  } finally {
    await ctx.flush(); // discovery cache files are written after the output; finish them before exiting
    ctx.close();
  }
}

/**
 * KDYN_TEST_DISCOVERY_TIMEOUT_MS (tests only, see docs/configuration.md): discovery's time limit
 * instead of kubectl's 32 s, so a test of a server that never answers need not wait 32 seconds.
 */
function contextOptions(env: IO['env']): ContextOptions {
  const v = env.KDYN_TEST_DISCOVERY_TIMEOUT_MS;
  return v && /^\d+$/.test(v) && Number(v) > 0 ? { discoveryTimeoutMs: Number(v) } : {};
}

function reportUsage(e: UsageError, argv: readonly string[], io: IO, prog: string): number {
  const cmd = argv.find((a) => findCommand(a) !== undefined);
  const topic = cmd && !e.message.startsWith('unknown command') ? ` ${cmd}` : '';
  io.stderr.write(`error: ${e.message} (see '${prog}${topic} --help')\n`);
  return 2;
}


