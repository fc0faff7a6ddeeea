/** A `kind: test` document as written (snake_case): a conversation with expectations per step. */
export interface TestSpec {
  $schema?: string;
  kind: 'test';
  name: string;
  description?: string;
  agent: string;
  /** One model for every agent of the tree, or agent name -> model. */
  model?: string | Record<string, string>;
  state?: Record<string, unknown>;
  /** How long the whole test may take: milliseconds, or `30s`, `2m`. */
  timeout?: number | string;
  turns: TestTurnSpec[];
}

/** One step of a test: a user message, or decisions resuming a paused run. */
export interface TestTurnSpec {
  user?: string;
  approve?: string[];
  deny?: string[];
  reason?: string;
  answer?: Record<string, string>;
  expect?: TestExpectSpec;
}

/** What a step must produce. */
export interface TestExpectSpec {
  output?: { contains?: string; equals?: string; matches?: string; schema?: Record<string, unknown> };
  transfer?: string;
  tool_calls?: Array<{ name: string; args?: Record<string, unknown> }>;
  no_tool_calls?: true;
  state?: Record<string, unknown>;
  max?: { model_calls?: number; tokens?: number };
  pending?: string[];
  error?: string;
  judge?: { model: string; criteria: string };
}
