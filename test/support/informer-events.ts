/**
 * Records what an informer's handlers saw, as lines (`add ns/name`, `update ns/name 5->7`,
 * `delete ns/name`, `delete? ns/name` for a DeletedFinalStateUnknown), and lets a test wait until
 * the record satisfies a condition: checked after each event, never on a timer (the only timer is a
 * hang guard that fails the wait with what was seen).
 */
import { DeletedFinalStateUnknown, type EventHandlers, type InformerHealth } from '../../src/informer/types.js';
import { keyOf, type KubeObject } from '../../src/informer/indexer.js';
import type { Informer } from '../../src/informer/informer.js';

/** Resolves when the informer's health satisfies `pred` (checked on each health change). */
export function healthUntil<T extends KubeObject>(inf: Informer<T>, pred: (h: InformerHealth) => boolean): Promise<InformerHealth> {
  return new Promise((resolve) => {
    if (pred(inf.health())) return resolve(inf.health());
    const off = inf.onHealth((h) => {
      if (!pred(h)) return;
      off();
      resolve(h);
    });
  });
}

export interface EventRecord<T extends KubeObject> {
  lines: string[];
  /**
   * The events replayed in order: key -> resourceVersion. Equal to the server's state when the
   * handlers saw every change, or a relist's coalesced equivalent.
   */
  state: Map<string, string>;
  /**
   * Events that contradict the ones before (an add of a key already there, an update or delete of
   * one that is not, an update to an older or the same resourceVersion): a repeated or lost change.
   */
  anomalies: string[];
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
  const state = new Map<string, string>();
  const anomalies: string[] = [];
  const push = (line: string) => {
    lines.push(line);
    poke();
  };
  /** Applies one event to `state`, noting what contradicts it. */
  const replay = (line: string, key: string, next: string | undefined) => {
    const had = state.get(key);
    const isAdd = line.startsWith('add');
    if (isAdd ? had !== undefined : had === undefined) anomalies.push(`${line} (state: ${had ?? 'absent'})`);
    else if (next !== undefined && had !== undefined && !(Number(next) > Number(had))) anomalies.push(`${line} (not newer than ${had})`);
    if (next === undefined) state.delete(key);
    else state.set(key, next);
    push(line);
  };
  return {
    lines,
    state,
    anomalies,
    poke,
    handlers: {
      onAdd: (o, initial) => replay(`add ${keyOf(o)}${opts.initial && initial ? ' (initial)' : ''}`, keyOf(o), rv(o)),
      onUpdate: (old, o) => (old === o ? push(`resync ${keyOf(o)}`) : replay(`update ${keyOf(o)} ${rv(old)}->${rv(o)}`, keyOf(o), rv(o))),
      onDelete: (o) => {
        const key = o instanceof DeletedFinalStateUnknown ? o.key : keyOf(o);
        replay(o instanceof DeletedFinalStateUnknown ? `delete? ${o.key} ${rv(o.obj)}` : `delete ${key}`, key, undefined);
      },
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
