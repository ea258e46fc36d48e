/**
 * Issue 11's watch targets: `kdyn watch -o jsonl` against `kubectl get -w -o json` on a stream of
 * 50,000 watch events (events per second, as the wall time of the same stream: ratio <= 1/1.5), the
 * peak RSS of the same runs (flat memory), and the time to the first watch event after start-up.
 * Both tools list the feed's 100 objects first (kubectl always does; kdyn's --watch-only does too,
 * without printing them), then read the stream; the feed server (bench/watch-feed.ts, its own
 * process) generates the events when the watch opens and ends the stream after them, which is when
 * kubectl exits; kdyn exits at --max-events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchCase } from '../types.js';

const EVENTS = 50_000;
const FEED = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'watch-feed.js');

/** One feed server per event count, shared by the cases, stopped when the harness exits. */
const feeds = new Map<number, Promise<{ kubeconfig: string; child: ChildProcess }>>();
const children = new Set<ChildProcess>();
let feedDir: string | undefined;
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  if (feedDir) rmSync(feedDir, { recursive: true, force: true });
});

function startFeed(events: number): Promise<{ kubeconfig: string; child: ChildProcess }> {
  let p = feeds.get(events);
  if (!p) {
    feedDir ??= mkdtempSync(join(tmpdir(), 'kdyn-bench-feed-'));
    const kubeconfig = join(feedDir, `feed-${events}.kubeconfig`);
    p = new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [FEED, kubeconfig, String(events)], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let err = '';
      child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
      child.stdout!.on('data', (b: Buffer) => {
        if (b.toString().includes('ready ')) resolve({ kubeconfig, child });
      });
      child.on('exit', (code) => reject(new Error(`watch feed exited (${code}) before ready: ${err.trim().split('\n').pop() ?? ''}`)));
    });
    feeds.set(events, p);
  }
  return p;
}

const kubeconfigs = new Map<number, string>();

function watchCase(name: string, description: string, events: number, metric: 'wall' | 'rss', max: number, runs?: number): BenchCase {
  const kc = () => ['--kubeconfig', kubeconfigs.get(events)!];
  return {
    name,
    description,
    issue: 'issue 11',
    server: null,
    metric,
    target: { kind: 'ratio', max },
    prepare: async () => {
      try {
        kubeconfigs.set(events, (await startFeed(events)).kubeconfig);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    },
    kdyn: () => ['watch', 'configmaps', '-n', 'feed', '--watch-only', '-o', 'jsonl', '--max-events', String(events), ...kc()],
    baseline: { kind: 'kubectl', args: () => ['get', 'configmaps', '-n', 'feed', '-w', '--watch-only', '-o', 'json', ...kc()] },
    ...(runs ? { runs } : {}),
  };
}

export const order = 40;

export const cases: BenchCase[] = [
  // >= 1.5x kubectl's events per second on the same stream = <= 1/1.5 of its wall time.
  watchCase('watch-50k-jsonl', `watch -o jsonl, ${EVENTS.toLocaleString('en')} events vs kubectl get -w -o json`, EVENTS, 'wall', 1 / 1.5, 5),
  watchCase('watch-50k-rss', `peak RSS: watch -o jsonl vs kubectl get -w -o json, ${EVENTS.toLocaleString('en')} events`, EVENTS, 'rss', 1.5, 3),
  watchCase('watch-first-event', 'time to the first watch event after start-up (list, watch, one event, exit)', 1, 'wall', 1.0),
];
