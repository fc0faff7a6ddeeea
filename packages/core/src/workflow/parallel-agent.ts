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
    const overlays = this.subAgents.map((sub) => recordedWrites(ctx, `${ctx.branch}.${sub.name}`));
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
    if (Object.keys(merged).length > 0) ctx.emit('state_delta', { delta: merged }, merged);
    ctx.emit('agent_end', { agent: this.name, output: '' });
  }
}

// As the branch kept them: a deletion as `null`, which the merge then applies; a value
// `state.update` stored marked so, so that the merge does not write it whole over later updates.
function recordedWrites(ctx: InvocationContext, branch: string): Record<string, unknown> {
  const overlay: Record<string, unknown> = {};
  for (const event of ctx.session.events) {
    if (event.invocationId !== ctx.invocationId || !event.branchDelta) continue;
    if (event.branch !== branch && !event.branch.startsWith(`${branch}.`)) continue;
    for (const [key, value] of Object.entries(event.branchDelta)) {
      overlay[key] = value;
      markStored(overlay, key, event.storedKeys?.includes(key) === true);
    }
  }
  return overlay;
}
