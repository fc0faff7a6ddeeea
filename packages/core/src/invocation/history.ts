import type { AgentEvent } from '../events.js';
import type { Message } from '../messages.js';

/**
 * Whether an event on branch `from` belongs in the history of an agent on branch `reader`.
 * Everything is shared except across the branches of a parallel agent: two branches that split
 * right below a parallel agent do not see each other.
 */
export function isVisible(from: string, reader: string, parallel: ReadonlySet<string>): boolean {
  if (from === reader || reader.startsWith(`${from}.`) || from.startsWith(`${reader}.`)) return true;
  const a = from.split('.');
  const b = reader.split('.');
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  if (common === 0) return true;
  return !parallel.has(a[common - 1]);
}

/** The conversation an agent on `branch` sees: every visible `message` event, in order. */
export function historyFor(
  events: readonly AgentEvent[],
  branch: string,
  parallel: ReadonlySet<string>,
): Message[] {
  const out: Message[] = [];
  for (const event of events) {
    if (event.type === 'message' && isVisible(event.branch, branch, parallel)) out.push(event.message);
  }
  return out;
}
