import type { Agent, AgentType } from '../agent.js';
import { checkAgentName } from '../agent.js';
import type { InvocationContext } from '../invocation/invocation-context.js';
import type { MemoryProvider } from '../memory.js';

/** What a workflow agent is made of. */
export interface WorkflowAgentConfig {
  name: string;
  description?: string;
  subAgents: readonly Agent[];
  /** Where a run started at this agent keeps its session, as an LLM agent's `memory` does. */
  memory?: MemoryProvider;
}

/** An agent that has no model and only orchestrates its sub-agents. */
export abstract class WorkflowAgent implements Agent {
  abstract readonly type: AgentType;
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly Agent[];
  /** Where a run started at this agent keeps its session (see {@link WorkflowAgentConfig.memory}). */
  readonly memory: MemoryProvider | undefined;
  parent?: Agent;

  constructor(config: WorkflowAgentConfig) {
    checkAgentName(config.name);
    this.name = config.name;
    this.description = config.description ?? '';
    this.subAgents = config.subAgents;
    this.memory = config.memory;
  }

  abstract runInvocation(ctx: InvocationContext): Promise<void>;
}
