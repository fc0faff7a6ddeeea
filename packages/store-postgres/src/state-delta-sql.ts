import type { AgentEvent } from '@agentctl/core';

/** Several state deltas folded into one: keys to set (last write wins) and keys to delete. */
export interface FoldedDelta {
  set: Record<string, unknown>;
  remove: string[];
}

/**
 * The state deltas of `events`, in order, as one set-and-delete pair, so that a single UPDATE
 * (`(state - remove) || set`) applies them with the same result as core's `applyDelta` one by one.
 */
export function foldDeltas(deltas: Iterable<Readonly<Record<string, unknown>> | undefined>): FoldedDelta {
  const set: Record<string, unknown> = {};
  const remove = new Set<string>();
  for (const delta of deltas) {
    if (!delta) continue;
    for (const [key, value] of Object.entries(delta)) {
      if (value === null) {
        delete set[key];
        remove.add(key);
      } else {
        set[key] = value;
        remove.delete(key);
      }
    }
  }
  return { set, remove: [...remove] };
}

/** The folded state deltas of a batch of events. */
export function foldEventDeltas(events: readonly AgentEvent[]): FoldedDelta {
  return foldDeltas(events.map((e) => e.stateDelta));
}
