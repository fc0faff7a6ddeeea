import type { Agent } from '../agent.js';
import { checkAgentName } from '../agent.js';
import type { InvocationContext } from '../invocation/invocation-context.js';

/** What a workflow agent is made of. */
export interface WorkflowAgentConfig {
  name: string;
  description?: string;
  subAgents: readonly Agent[];
}

/** Runs its sub-agents one after another; each sees what the earlier ones wrote. */
export class SequentialAgent implements Agent {
  readonly type = 'sequential' as const;
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly Agent[];
  parent?: Agent;

  constructor(config: WorkflowAgentConfig) {
    checkAgentName(config.name);
    this.name = config.name;
    this.description = config.description ?? '';
    this.subAgents = config.subAgents;
  }

  async runInvocation(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    for (const sub of this.subAgents) {
      await sub.runInvocation(ctx.child(sub));
      // An escalation from a sub-agent stops this sequence and travels on to the nearest loop.
      if (ctx.stopped || ctx.escalation?.escalated) {
        if (ctx.stopped) return;
        break;
      }
    }
    ctx.emit('agent_end', { agent: this.name, output: '' });
  }
}
