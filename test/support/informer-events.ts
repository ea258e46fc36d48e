/**
 * Records what an informer's handlers saw, as lines (`add ns/name`, `update ns/name 5->7`,
 * `delete ns/name`, `delete? ns/name` for a DeletedFinalStateUnknown), and lets a test wait until
 * the record satisfies a condition: checked after each event, never on a timer (the only timer is a
 * hang guard that fails the wait with what was seen).
 */
import { DeletedFinalStateUnknown, type EventHandlers } from '../../src/informer/types.js';
import { keyOf, type KubeObject } from '../../src/informer/indexer.js';

export interface EventRecord<T extends KubeObject> {
  lines: string[];
  /** The handlers to register (`informer.addEventHandler(record.handlers)`). */
  handlers: EventHandlers<T>;
  /** Resolves once `pred(lines)` holds; rejects after `guardMs` (default 60 s) naming `what`. */
  until(pred: (lines: string[]) => boolean, what: string, guardMs?: number): Promise<void>;
  /** Re-checks the waits (for conditions on something other than events, e.g. health). */
  poke(): void;
}

const rv = (o: KubeObject | undefined) => o?.metadata?.resourceVersion ?? '?';

export function recordEvents<T extends KubeObject>(opts: { initial?: boolean } = {}): EventRecord<T> {
  const lines: string[] = [];
  const waits = new Set<() => void>();
  const poke = () => {
    for (const w of [...waits]) w();
  };
  const push = (line: string) => {
    lines.push(line);
    poke();
  };
  return {
    lines,
    poke,
    handlers: {
      onAdd: (o, initial) => push(`add ${keyOf(o)}${opts.initial && initial ? ' (initial)' : ''}`),
      onUpdate: (old, o) => push(old === o ? `resync ${keyOf(o)}` : `update ${keyOf(o)} ${rv(old)}->${rv(o)}`),
      onDelete: (o) => push(o instanceof DeletedFinalStateUnknown ? `delete? ${o.key} ${rv(o.obj)}` : `delete ${keyOf(o)}`),
    },
    until: (pred, what, guardMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pred(lines)) return;
          waits.delete(check);
          clearTimeout(guard);
          resolve();
        };
        const guard = setTimeout(() => {
          waits.delete(check);
          reject(new Error(`waiting for ${what}: not seen; the handlers saw:\n${lines.join('\n')}`));
        }, guardMs);
        waits.add(check);
        check();
      }),
  };
}
