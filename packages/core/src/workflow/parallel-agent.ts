import type { InvocationContext } from '../invocation/invocation-context.js';
import { markStored, storedKeysOf } from '../stored-keys.js';
import { WorkflowAgent } from './workflow-agent.js';

/**
 * Runs its sub-agents at the same time on isolated branches: each sees only its own branch's
 * history and state writes. When all are done their state writes are merged in declaration
 * order (a later sub-agent's write to the same key wins) and applied with one `state_delta` event.
 */
export class ParallelAgent extends WorkflowAgent {
  readonly type = 'parallel' as const;
  override async runInvocation(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    // Writes recorded before a pause are rebuilt from the log, so a resumed fan-out merges them too.
    const overlays = recordedWrites(ctx, this);
    await Promise.all(this.subAgents.map((sub, i) => ctx.child(sub, { isolate: overlays[i] }).runAgent()));
    if (ctx.stopped) return;
    const merged: Record<string, unknown> = {};
    for (const overlay of overlays) {
      const stored = storedKeysOf(overlay);
      for (const [key, value] of Object.entries(overlay)) {
        merged[key] = value;
        markStored(merged, key, stored?.has(key) === true);
      }
    }
    // What the store holds for the keys `state.update` stored, as the event's delta will say: the
    // payload shows what was applied.
    const stored = storedKeysOf(merged);
    if (stored && !ctx.overlay)
      for (const key of stored) merged[key] = ctx.shared.storedValue(key, merged[key]);
    if (Object.keys(merged).length > 0) ctx.emit('state_delta', { delta: merged }, merged);
    ctx.emit('agent_end', { agent: this.name, output: '' });
  }
}

// Each branch's writes as it kept them (a deletion as `null`, which the merge then applies; a value
// `state.update` stored marked so, so that the merge does not write it whole over later updates),
// recorded in this invocation since this agent last merged: on resume, those made before the pause.
// An earlier pass of an enclosing loop merged its own; merged again, they would undo what came after.
function recordedWrites(ctx: InvocationContext, agent: ParallelAgent): Record<string, unknown>[] {
  const events = ctx.session.events;
  // An invocation's events are the log's last ones (a paused session takes no other run).
  let from = events.length;
  while (from > 0) {
    const event = events[from - 1];
    if (event.invocationId !== ctx.invocationId) break;
    if (event.type === 'agent_end' && event.branch === ctx.branch && event.agent === agent.name) break;
    from--;
  }
  const branches = agent.subAgents.map((sub) => `${ctx.branch}.${sub.name}`);
  const overlays = branches.map((): Record<string, unknown> => ({}));
  for (let i = from; i < events.length; i++) {
    const event = events[i];
    if (!event.branchDelta) continue;
    const at = branches.findIndex(
      (branch) => event.branch === branch || event.branch.startsWith(`${branch}.`),
    );
    if (at < 0) continue;
    for (const [key, value] of Object.entries(event.branchDelta)) {
      overlays[at][key] = value;
      markStored(overlays[at], key, event.storedKeys?.includes(key) === true);
    }
  }
  return overlays;
}
