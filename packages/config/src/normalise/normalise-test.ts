import { type AgentErrorCode, parseDuration } from '@agentctl/core';
import type { TestDefinition } from '../test-definition.js';
import type { TestSpec } from '../test-spec-types.js';

/** The definition of a test spec that passed its schema: the one place that reads a test's YAML spelling. */
export function normaliseTest(spec: TestSpec): TestDefinition {
  return {
    name: spec.name,
    description: spec.description,
    agent: spec.agent,
    model: spec.model,
    state: spec.state,
    timeoutMs: parseDuration(spec.timeout, 'timeout'),
    turns: spec.turns.map((turn) => {
      const e = turn.expect ?? {};
      return {
        user: turn.user,
        approve: turn.approve ?? [],
        deny: turn.deny ?? [],
        reason: turn.reason,
        answer: turn.answer ?? {},
        expect: {
          output: e.output,
          transfer: e.transfer,
          toolCalls: e.tool_calls,
          noToolCalls: e.no_tool_calls === true,
          state: e.state,
          max: e.max && { modelCalls: e.max.model_calls, tokens: e.max.tokens },
          pending: e.pending,
          error: e.error as AgentErrorCode | undefined,
          judge: e.judge,
        },
      };
    }),
  };
}
