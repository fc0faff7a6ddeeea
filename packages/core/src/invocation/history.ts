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

/**
 * The conversation an agent on `branch` sees: every visible `message` event, in order, except that
 * the branches of a parallel agent it is outside of are seen one after another (in the order each
 * first spoke), each in its own order: interleaved as they ran, one branch's answer would land
 * between another's tool call and its result, a conversation no model accepts.
 */
export function historyFor(
  events: readonly AgentEvent[],
  branch: string,
  parallel: ReadonlySet<string>,
): Message[] {
  const seen: Array<{ branch: string; message: Message }> = [];
  const out: Message[] = [];
  for (const event of events) {
    if (event.type !== 'message' || !isVisible(event.branch, branch, parallel)) continue;
    if (parallel.size === 0) out.push(event.message);
    else seen.push({ branch: event.branch, message: event.message });
  }
  if (parallel.size > 0) byLane(seen, branch, parallel, 0, out);
  return out;
}

type Seen = { branch: string; message: Message };

// Appends `items` to `out`, a run of items from the lanes of one fan-out (below `depth` segments)
// gathered lane by lane; each lane's own items are ordered the same way one level down.
function byLane(
  items: readonly Seen[],
  reader: string,
  parallel: ReadonlySet<string>,
  depth: number,
  out: Message[],
): void {
  let fan: string | undefined;
  let laneDepth = 0;
  let lanes = new Map<string, Seen[]>();
  const flush = (): void => {
    for (const lane of lanes.values()) byLane(lane, reader, parallel, laneDepth, out);
    lanes = new Map();
    fan = undefined;
  };
  for (const item of items) {
    const found = laneOf(item.branch, reader, parallel, depth);
    if (!found) {
      flush();
      out.push(item.message);
      continue;
    }
    if (fan !== found.fan) flush();
    fan = found.fan;
    laneDepth = found.depth;
    const lane = lanes.get(found.lane);
    if (lane) lane.push(item);
    else lanes.set(found.lane, [item]);
  }
  flush();
}

// The first branch that `from` is on, of a parallel agent at segment `depth` or deeper (a lane's
// own agent may be a parallel one), that the reader is outside of.
function laneOf(
  from: string,
  reader: string,
  parallel: ReadonlySet<string>,
  depth: number,
): { fan: string; lane: string; depth: number } | undefined {
  const parts = from.split('.');
  for (let i = depth; i < parts.length - 1; i++) {
    if (!parallel.has(parts[i])) continue;
    const lane = parts.slice(0, i + 2).join('.');
    if (reader === lane || reader.startsWith(`${lane}.`)) continue;
    return { fan: parts.slice(0, i + 1).join('.'), lane, depth: i + 1 };
  }
  return undefined;
}
