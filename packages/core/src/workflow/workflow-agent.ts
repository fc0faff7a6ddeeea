import type { Agent, AgentType } from '../agent.js';
import { checkAgentName } from '../agent.js';
import type { InvocationContext } from '../invocation/invocation-context.js';

/** What a workflow agent is made of. */
export interface WorkflowAgentConfig {
  name: string;
  description?: string;
  subAgents: readonly Agent[];
}

/** An agent that has no model and only orchestrates its sub-agents. */
export abstract class WorkflowAgent implements Agent {
  abstract readonly type: AgentType;
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

  abstract runInvocation(ctx: InvocationContext): Promise<void>;
}
