/**
 * Waiting for kdyn's background kubectl-layout writer (src/discovery/write-behind.ts,
 * src/discovery/layout-writer.ts) after a timed kdyn run, untimed. On a big cluster a cold kdyn run exits
 * before kubectl's ~1,000 layout files are written; a detached `node layout-writer.js <root> <server>`
 * keeps writing. Left alone it competes for the CPUs with the next timed run (of either tool) and
 * races the cold case's cache wipe (ENOTEMPTY), so the harness waits for it.
 *
 * How: right after kdyn's exit the writer already runs (kdyn spawns it before exiting; spawn returns
 * after exec), so /proc lists it, matched by its argv (`layout-writer.js` and this cache root). The
 * wait polls until those pids have exited (zombies count as exited), and notes when
 * `<root>/discovery/<host>/servergroups.json` (written last) appeared: the layout is complete then.
 * Without /proc (not Linux) it waits for servergroups.json only, at most 10 s. Bounded by a deadline;
 * no fixed sleeps.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { cachePaths } from '../src/discovery/cache-dir.js';

export interface WriterWait {
  /** Whether a background writer was found running at kdyn's exit. */
  writer: boolean;
  /** Ms from the start of the wait until kubectl's layout was complete (servergroups.json present); undefined: it never appeared. */
  layoutMs?: number;
  /** Ms spent waiting in all. */
  waitedMs: number;
  timedOut: boolean;
}

export interface WaitOptions {
  deadlineMs?: number;
  pollMs?: number;
}

const WRITER_SCRIPT = 'layout-writer.js';

/** Pids of live layout writers for this cache root, or undefined when /proc cannot be read. */
export function findLayoutWriters(root: string): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone, or not ours to read
    }
    const script = argv.findIndex((a) => a.endsWith(`/${WRITER_SCRIPT}`) || a === WRITER_SCRIPT);
    if (script >= 0 && argv[script + 1] === root && alive(Number(e))) pids.push(Number(e));
  }
  return pids;
}

/** True while the process exists and is not a zombie (a detached writer is reaped by whoever adopted it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": the state follows the last ')', since comm may contain spaces or parens.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Waits until kdyn's background writer for `root` and `server` has finished (see the module comment).
 * Returns at once when none is running and the layout is already complete.
 */
export async function waitForLayoutWriter(root: string, server: string, opts: WaitOptions = {}): Promise<WriterWait> {
  const deadlineMs = opts.deadlineMs ?? 60_000;
  const pollMs = opts.pollMs ?? 5;
  const started = performance.now();
  const since = () => performance.now() - started;
  const sg = cachePaths(root, server)?.serverGroupsFile;
  const complete = () => sg !== undefined && existsSync(sg);
  let pids = findLayoutWriters(root);
  const limit = pids === undefined ? Math.min(deadlineMs, 10_000) : deadlineMs;
  const writer = pids !== undefined && pids.length > 0;
  let layoutMs = complete() ? 0 : undefined;
  for (;;) {
    if (layoutMs === undefined && complete()) layoutMs = since();
    if (pids !== undefined) pids = pids.filter(alive);
    // With /proc: done when the writers have exited. Without: when the layout is complete.
    const done = pids !== undefined ? pids.length === 0 : layoutMs !== undefined;
    if (done || since() >= limit) {
      if (layoutMs === undefined && complete()) layoutMs = since();
      return { writer, layoutMs, waitedMs: since(), timedOut: !done };
    }
    await delay(pollMs);
  }
}
