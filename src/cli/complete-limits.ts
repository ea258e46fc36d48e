/**
 * How long `kdyn __complete` may wait for names from the server (the TAB press waits for it), and the
 * race that gives up at that limit with what is known.
 */
import type { IO } from '../core/io.js';

/** How long `names` may take (the TAB press waits for it). */
export const NAMES_TIMEOUT_MS = 1000;

/**
 * The limit for this run: NAMES_TIMEOUT_MS, or KDYN_TEST_COMPLETION_TIMEOUT_MS (tests only, see
 * docs/configuration.md: completion tests on a loaded CI machine, where a second is not enough).
 */
export function limitMs(env: IO['env']): number {
  const v = env.KDYN_TEST_COMPLETION_TIMEOUT_MS;
  return v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : NAMES_TIMEOUT_MS;
}

/** `p`, or `fallback` when it fails or takes longer than `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([p.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
}
