import type { AgentSpec, SourceRange, SpecEntry, TestSpec } from '@agentctl/config';
import { type Agent, isAgentError, Runner } from '@agentctl/core';
import { invocationOutcome } from '../../invocation-outcome.js';
import type { Failure } from './test-result.js';

const VERDICT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['pass', 'reason'],
  properties: {
    pass: { type: 'boolean', description: 'Whether the answer meets every criterion.' },
    reason: { type: 'string', description: 'Why, in one or two sentences.' },
  },
};

const INSTRUCTION = [
  'You judge one answer of an AI agent for an automated test.',
  'Read the criteria, the user message and the answer. Decide whether the answer meets every criterion.',
  'Reply with JSON only: {"pass": true or false, "reason": "why, in one or two sentences"}.',
].join('\n');

/** A judge's verdict on one step. */
interface Verdict {
  pass: boolean;
  reason: string;
}

/**
 * The agent that judges step `turn` of a test: an LLM agent on the judge's model whose answer must
 * be a verdict (its output schema), compiled with the tree so it is made like any other agent.
 */
export function judgeEntry(
  test: SpecEntry<TestSpec>,
  turn: number,
  model: string,
  name: string,
): SpecEntry<AgentSpec> {
  const at = ['turns', turn, 'expect', 'judge'];
  const spec: AgentSpec = {
    kind: 'agent',
    name,
    model,
    instruction: INSTRUCTION,
    output_schema: VERDICT_SCHEMA,
  };
  return {
    kind: 'agent',
    name,
    spec,
    file: test.file,
    absFile: test.absFile,
    range: test.locate(at),
    // The judge's own problems (its model) are reported at the test's `judge:`.
    locate: (path, options) => test.locate(path[0] === 'model' ? [...at, 'model'] : at, options),
  };
}

/**
 * Has the judge agent read one step's answer: undefined when it passes it, else the failure with
 * the judge's reason (a judge that gives no verdict fails the step too).
 */
export async function judgeStep(
  judge: Agent,
  expect: { criteria: string },
  user: string | undefined,
  answer: string,
  where: { turn: number; signal: AbortSignal; range: SourceRange },
): Promise<Failure | undefined> {
  const verdict = await askJudge(judge, judgePrompt(expect.criteria, user, answer), where.signal).catch(
    (error: Error) => ({ pass: false, reason: error.message }),
  );
  if (verdict.pass) return undefined;
  return {
    turn: where.turn,
    expectation: 'judge',
    message: `the judge failed the answer: ${verdict.reason}`,
    expected: expect.criteria,
    actual: answer,
    range: where.range,
  };
}

// What the judge reads: the criteria, then the step's user message and the agent's answer.
function judgePrompt(criteria: string, user: string | undefined, answer: string): string {
  return [
    `Criteria:\n${criteria}`,
    `User message:\n${user ?? '(the step resumed a paused run)'}`,
    `Answer:\n${answer}`,
  ].join('\n\n');
}

// A judge that gives no verdict is an error, not a pass.
async function askJudge(judge: Agent, prompt: string, signal: AbortSignal): Promise<Verdict> {
  const run = new Runner({ agent: judge }).run({ input: prompt, signal });
  const result = await invocationOutcome(run);
  if (isAgentError(result)) throw new Error(`the judge gave no verdict: ${result.code}: ${result.message}`);
  if (result instanceof Error) throw result;
  const value = (result as { value: unknown }).value as Partial<Verdict> | undefined;
  if (typeof value?.pass !== 'boolean')
    throw new Error(`the judge gave no verdict: ${JSON.stringify((result as { output: string }).output)}`);
  return { pass: value.pass, reason: String(value.reason ?? '') };
}
