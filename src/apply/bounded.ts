/**
 * Bounded concurrency: at most `limit` tasks in flight, started in input order. Once `stopped()`
 * is true no new task starts; tasks already running finish. Pure scheduling, no timers.
 */

/**
 * Runs `task(i)` for i in `indexes`' order. Resolves when every started task has settled; returns
 * the indexes that were never started (because `stopped()` became true). A task records its own
 * failure; one that rejects rejects the run (after the tasks in flight settle).
 */
export async function runBounded(
  indexes: readonly number[],
  limit: number,
  task: (i: number) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<number[]> {
  let next = 0;
  const notStarted: number[] = [];
  const worker = async (): Promise<void> => {
    while (next < indexes.length) {
      const i = indexes[next++]!;
      if (stopped()) {
        notStarted.push(i);
        continue;
      }
      await task(i);
    }
  };
  const n = Math.max(1, Math.min(limit, indexes.length));
  await Promise.all(Array.from({ length: n }, worker));
  return notStarted.sort((a, b) => a - b);
}

/** A counting semaphore: `run(f)` waits for a free slot. */
export function semaphore(limit: number): <T>(f: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: Array<() => void> = [];
  return async (f) => {
    if (active >= limit) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await f();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

/** Delivers results in index order as soon as every earlier index has one. */
export class OrderedEmitter<T> {
  #held = new Map<number, T>();
  #next = 0;
  constructor(
    private readonly order: readonly number[],
    private readonly emit: (value: T) => void,
  ) {}

  set(index: number, value: T): void {
    this.#held.set(index, value);
    while (this.#next < this.order.length && this.#held.has(this.order[this.#next]!)) {
      const i = this.order[this.#next++]!;
      const v = this.#held.get(i)!;
      this.#held.delete(i);
      this.emit(v);
    }
  }
}
