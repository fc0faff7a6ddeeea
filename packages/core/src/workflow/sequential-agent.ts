import type { InvocationContext } from '../invocation/invocation-context.js';
import { WorkflowAgent } from './workflow-agent.js';

/** Runs its sub-agents one after another; each sees what the earlier ones wrote. */
export class SequentialAgent extends WorkflowAgent {
  readonly type = 'sequential' as const;
  override async runInvocation(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    for (const sub of this.subAgents) {
      await ctx.child(sub).runAgent();
      // An escalation from a sub-agent stops this sequence and travels on to the nearest loop.
      if (ctx.stopped || ctx.escalation?.escalated) {
        if (ctx.stopped) return;
        break;
      }
    }
    ctx.emit('agent_end', { agent: this.name, output: '' });
  }
}
