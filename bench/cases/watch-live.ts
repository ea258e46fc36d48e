/**
 * Issue 25's targets for the live view: `kdyn watch configmaps --live` in a real terminal (tmux,
 * 200x50) on 10,000 objects while the feed (bench/live-feed.ts, its own process) makes 1,000
 * changes a second for 60 s. Measured: the longest time a change in kdyn's store waited to be on
 * the screen (the sample; target <= 200 ms; from the view's own frame statistics,
 * KDYN_TEST_LIVE_STATS), kdyn's CPU over the 60 s (target <= 25% of one core, from /proc) and its
 * resident memory every 5 s (flat), both logged. Opt-in (a minute and more): `npm run bench --
 * --case watch-live-10k`. Not ready where tmux is missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KDYN_BIN } from '../tools.js';
import type { BenchCase, CaseEnv } from '../types.js';

const OBJECTS = 10_000;
const RATE = 1_000;
/** KDYN_BENCH_LIVE_SECONDS: a longer run, to see memory settle. */
const SECONDS = Number(process.env.KDYN_BENCH_LIVE_SECONDS) || 60;
const FEED = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'live-feed.js');
const CLK_TCK = 100;

function tmux(socket: string, ...args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, TMUX: '' } });
  if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** utime + stime of `pid` in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function waitFor(pred: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (pred()) {
        clearInterval(t);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(t);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 50);
  });
}

async function liveRun(env: CaseEnv): Promise<number> {
  const kubeconfig = join(env.tmp, 'feed.kubeconfig');
  const feed: ChildProcess = spawn(process.execPath, [FEED, kubeconfig, String(OBJECTS), String(RATE), String(SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let feedOut = '';
  feed.stdout!.on('data', (b: Buffer) => (feedOut += b.toString()));
  const socket = `kdyn-bench-live-${process.pid}`;
  const stats = join(env.tmp, 'live-stats.json');
  try {
    await waitFor(() => feedOut.includes('ready '), 60_000, 'the feed server');
    const vars = { ...env.toolEnv('kdyn'), KUBECONFIG: kubeconfig, TERM: 'screen', KDYN_TEST_LIVE_STATS: stats };
    tmux(socket, 'new-session', '-d', '-s', 'b', '-x', '200', '-y', '50', 'env', '-i', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), KDYN_BIN, 'watch', 'configmaps', '-n', 'feed', '--live');
    const pid = Number(tmux(socket, 'display-message', '-p', '-t', 'b', '#{pane_pid}').trim());
    const screen = () => tmux(socket, 'capture-pane', '-p', '-t', 'b');
    await waitFor(() => feedOut.includes('feeding') && screen().includes(`| watching | ${OBJECTS} objects`), 60_000, 'the initial list on the screen');
    const cpu0 = cpuSeconds(pid);
    const t0 = Date.now();
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(rssMiB(pid)), 5000);
    await waitFor(() => feedOut.includes('done '), (SECONDS + 30) * 1000, 'the end of the feed');
    clearInterval(sampler);
    const cpu = ((cpuSeconds(pid) - cpu0) / ((Date.now() - t0) / 1000)) * 100;
    const head = screen().split('\n')[0];
    tmux(socket, 'send-keys', '-t', 'b', 'q');
    await waitFor(() => {
      try {
        readFileSync(stats);
        return true;
      } catch {
        return false;
      }
    }, 10_000, 'kdyn to quit');
    const s = JSON.parse(readFileSync(stats, 'utf8')) as { frames: number; bytes: number; maxLagMs: number; maxInitialMs: number; lagHistogram: number[] };
    const frames = s.lagHistogram.reduce((a, b) => a + b, 0);
    let acc = 0;
    const p99 = s.lagHistogram.findIndex((n) => (acc += n) >= frames * 0.99) * 10;
    env.log(`watch-live-10k: cpu ${cpu.toFixed(1)}% of one core over ${((Date.now() - t0) / 1000).toFixed(0)} s; rss MiB every 5 s: ${rss.map((r) => r.toFixed(0)).join(' ')}`);
    env.log(`watch-live-10k: ${s.frames} frames (${(s.frames / SECONDS).toFixed(1)}/s), ${(s.bytes / 1024 / SECONDS).toFixed(1)} KiB/s to the terminal; lag max ${s.maxLagMs} ms, p99 <= ${p99 + 10} ms; the initial list on the screen ${s.maxInitialMs} ms after it was complete; header at the end: ${head}`);
    return s.maxLagMs;
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    feed.kill('SIGTERM');
  }
}

export const order = 45;

export const cases: BenchCase[] = [
  {
    name: 'watch-live-10k',
    description: `live view, ${OBJECTS.toLocaleString('en')} objects, ${RATE.toLocaleString('en')} events/s for ${SECONDS} s: longest store-to-screen lag (ms); CPU and RSS logged`,
    issue: 'issue 25',
    server: null,
    target: { kind: 'absolute', maxMs: 200 },
    baseline: { kind: 'none' },
    prepare: () => (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0 ? undefined : 'tmux not found'),
    custom: liveRun,
    runs: 1,
    warmup: 0,
    optIn: true,
  },
];
