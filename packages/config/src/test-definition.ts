import type { AgentErrorCode } from '@agentctl/core';

/** A `kind: test` document, normalised: what `agentctl test` runs. */
export interface TestDefinition {
  name: string;
  description?: string;
  /** The agent the conversation is with. */
  agent: string;
  /** One model for every agent of the tree, or agent name -> model. */
  model?: string | Readonly<Record<string, string>>;
  /** The session's state before the first step. */
  state?: Record<string, unknown>;
  /** Milliseconds the whole test may take; undefined: the command's limit. */
  timeoutMs?: number;
  turns: TestStep[];
}

/** One step: a user message, or decisions (by tool name or call id) that resume a paused run. */
export interface TestStep {
  user?: string;
  approve: string[];
  deny: string[];
  /** Given to the model for `deny`. */
  reason?: string;
  /** Tool name or call id -> the answer to its question. */
  answer: Record<string, string>;
  expect: TestExpectations;
}

/** What a step must produce; every one given is checked. */
export interface TestExpectations {
  output?: { contains?: string; equals?: string; matches?: string; schema?: Record<string, unknown> };
  transfer?: string;
  /** In this order, other calls allowed between; `args` match as a subset. */
  toolCalls?: Array<{ name: string; args?: Record<string, unknown> }>;
  noToolCalls: boolean;
  /** Keys the state has after the step (subset match). */
  state?: Record<string, unknown>;
  max?: { modelCalls?: number; tokens?: number };
  /** Tools whose calls the step pauses on. */
  pending?: string[];
  error?: AgentErrorCode;
  judge?: { model: string; criteria: string };
}
