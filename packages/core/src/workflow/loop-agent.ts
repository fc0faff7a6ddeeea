import type { InvocationContext } from '../invocation/invocation-context.js';
import { WorkflowAgent, type WorkflowAgentConfig } from './workflow-agent.js';

/** What a loop agent is made of. */
export interface LoopAgentConfig extends WorkflowAgentConfig {
  /** Passes over the sub-agents at most. Default 10. */
  maxIterations?: number;
}

/**
 * Runs its sub-agents in order, again and again, until one escalates (or calls `exit_loop`) or
 * `maxIterations` passes are done. An escalation stops this loop only, never an enclosing one.
 */
export class LoopAgent extends WorkflowAgent {
  readonly type = 'loop' as const;
  readonly maxIterations: number;

  constructor(config: LoopAgentConfig) {
    super(config);
    this.maxIterations = config.maxIterations ?? 10;
  }

  override async runInvocation(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    const scope = { escalated: false };
    for (let pass = 0; pass < this.maxIterations && !scope.escalated; pass++) {
      for (const sub of this.subAgents) {
        await ctx.child(sub, { escalation: scope }).runAgent();
        if (ctx.stopped) return;
        if (scope.escalated) break;
      }
    }
    ctx.emit('agent_end', { agent: this.name, output: '' });
  }
}
