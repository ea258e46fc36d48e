/**
 * Several watches as one stream (`kdyn watch deployments,pods`): events in the order they arrive,
 * each tagged with the index of its source. The first failure ends the merged iteration; ending it
 * asks every source to return (a source blocked on the network ends when its abort signal fires).
 */
export async function* mergeIterables<T>(sources: ReadonlyArray<AsyncIterable<T>>): AsyncGenerator<{ source: number; value: T }, void, undefined> {
  const iterators = sources.map((s) => s[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<T> }>>();
  const pull = (i: number) => pending.set(i, iterators[i]!.next().then((r) => ({ i, r })));
  iterators.forEach((_, i) => pull(i));
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        continue;
      }
      pull(i);
      yield { source: i, value: r.value };
    }
  } finally {
    // Not awaited: a source blocked in a read finishes its return() only when its own abort signal fires.
    for (const i of pending.keys()) iterators[i]!.return?.()?.catch(() => undefined);
  }
}
