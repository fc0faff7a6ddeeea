import type { InvocationContext } from './invocation/invocation-context.js';
import type { CallRecording } from './loop/recorded-call.js';

/** The kinds of agent in a tree; `a2a` is a remote agent reached over the A2A protocol. */
export type AgentType = 'llm' | 'sequential' | 'parallel' | 'loop' | 'a2a';

/** A node of an agent tree: an LLM agent or a workflow agent that orchestrates its sub-agents. */
export interface Agent {
  readonly name: string;
  /** What the agent does; parents and transfer tools show it to models. */
  readonly description: string;
  readonly type: AgentType;
  readonly subAgents: readonly Agent[];
  /** The agent this one is a sub-agent of, set when the tree is linked. */
  parent?: Agent;
  /** Runs this agent's part of an invocation, emitting events through the context. */
  runInvocation(ctx: InvocationContext): Promise<void>;
  /** How the agent records the model's tool calls, for one that makes any (an LLM agent). */
  callRecording?(): CallRecording;
}

/** Names no agent may have: `user` is the author of user messages. */
export const RESERVED_AGENT_NAMES: readonly string[] = ['user'];

/** Throws when a name cannot be an agent's. */
export function checkAgentName(name: string): void {
  if (!name || RESERVED_AGENT_NAMES.includes(name) || !/^[A-Za-z_][\w-]*$/.test(name)) {
    throw new TypeError(
      `"${name}" is not a valid agent name: use letters, digits, "_" or "-", starting with a letter, and not "user"`,
    );
  }
}
