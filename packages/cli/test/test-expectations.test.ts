import type { DataPath } from '@agentctl/config';
import {
  type AgentEvent,
  type AnyTool,
  createAgent,
  defineTool,
  InMemorySessionStore,
  type InvocationResult,
  isAgentError,
  offline,
  Runner,
  type ScriptTurn,
} from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import { checkExpectations } from '../src/commands/test/check-expectations.js';
import type { StepOutcome } from '../src/commands/test/step-outcome.js';
import { subsetMatch } from '../src/commands/test/subset-match.js';
import { createProgram, type Invocation } from '../src/program.js';

// Expectations checked against what a real run of a scripted agent produced.
async function outcomeOf(script: ScriptTurn[], options: { tools?: AnyTool[]; maxIterations?: number } = {}) {
  const agent = createAgent({
    name: 'a',
    provider: offline('script', { script }),
    tools: options.tools,
    outputKey: 'answer',
    maxIterations: options.maxIterations,
  });
  const events: AgentEvent[] = [];
  const run = new Runner({ agent, store: new InMemorySessionStore() }).run({
    input: 'hi',
    state: { tier: 'gold', tags: [{ id: 1, name: 'x' }] },
    onEvent: (e) => events.push(e),
  });
  run.then(
    () => undefined,
    () => undefined,
  );
  const result = await run.invocation.catch((error: unknown) => error);
  return (
    isAgentError(result)
      ? { events, error: { code: result.code, message: result.message } }
      : { events, result: result as InvocationResult }
  ) satisfies StepOutcome;
}

const lookup = defineTool<{ customer: string; detail?: { level: number; extra?: string } }>({
  name: 'lookup',
  description: 'Looks up',
  parameters: {
    type: 'object',
    properties: { customer: { type: 'string' }, detail: { type: 'object' } },
    required: ['customer'],
  },
  execute: ({ customer }) => `found ${customer}`,
});

const at = (path: DataPath) => ({ line: path.length, col: 1, endLine: path.length, endCol: 2 });

describe('agentctl test expectations', () => {
  it('pass on what the run did: output, ordered calls with subset args, state with lists, limits', async () => {
    const outcome = await outcomeOf(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { customer: 'acme', detail: { level: 2, extra: 'x' } } },
            { name: 'lookup', arguments: { customer: 'globex' } },
          ],
        },
        { text: '{"queue": "billing"}' },
      ],
      { tools: [lookup] },
    );
    const failures = await checkExpectations(
      {
        noToolCalls: false,
        output: {
          contains: 'billing',
          equals: ' {"queue": "billing"} ',
          matches: '"queue":\\s*"b',
          schema: { type: 'object', required: ['queue'] },
        },
        toolCalls: [
          { name: 'lookup', args: { detail: { level: 2 } } },
          { name: 'lookup', args: { customer: 'globex' } },
        ],
        state: { tier: 'gold', tags: [{ id: 1 }], answer: '{"queue": "billing"}' },
        max: { modelCalls: 2 },
      },
      outcome,
      0,
      at,
    );
    expect(failures).toEqual([]);
  });

  it('fail with what was expected and what happened, at the expectation', async () => {
    const outcome = await outcomeOf(
      [{ toolCalls: [{ name: 'lookup', arguments: { customer: 'acme' } }] }, { text: 'plain text' }],
      {
        tools: [lookup],
      },
    );
    const failures = await checkExpectations(
      {
        output: { equals: 'other', matches: '^\\d+$', schema: { type: 'object' } },
        toolCalls: [{ name: 'lookup', args: { customer: 'acme' } }, { name: 'lookup' }],
        noToolCalls: true,
        state: { tags: [{ id: 1 }, { id: 2 }], missing: 1 },
        max: { modelCalls: 1 },
        error: 'TIMEOUT',
        pending: ['lookup'],
      },
      outcome,
      2,
      at,
    );
    const by = new Map(failures.map((f) => [f.expectation, f]));
    expect([...by.keys()].sort()).toEqual(
      [
        'error',
        'max.model_calls',
        'no_tool_calls',
        'output.equals',
        'output.matches',
        'output.schema',
        'pending',
        'state.missing',
        'state.tags',
        'tool_calls[1]',
      ].sort(),
    );
    expect(by.get('tool_calls[1]')).toMatchObject({
      turn: 2,
      expected: { name: 'lookup' },
      actual: ['lookup({"customer":"acme"})'],
      range: at(['tool_calls', 1]),
    });
    expect(by.get('output.schema')?.message).toBe('expected the answer to be JSON valid against the schema');
    expect(by.get('max.model_calls')).toMatchObject({ expected: 1, actual: 2 });
    expect(by.get('error')).toMatchObject({ expected: 'TIMEOUT', actual: 'no error (complete)' });
    expect(by.get('state.missing')).toMatchObject({ actual: 'unset' });
    expect(by.get('pending')).toMatchObject({ expected: ['lookup'], actual: [] });
  });

  it('an expected error passes; another code fails naming the one that happened', async () => {
    const outcome = await outcomeOf(
      [{ toolCalls: [{ name: 'lookup', arguments: { customer: 'x' } }], fallback: true }],
      {
        tools: [lookup],
        maxIterations: 2,
      },
    );
    expect(
      await checkExpectations({ noToolCalls: false, error: 'MAX_ITERATIONS_EXCEEDED' }, outcome, 0, at),
    ).toEqual([]);
    const [wrong] = await checkExpectations({ noToolCalls: false, error: 'TIMEOUT' }, outcome, 0, at);
    expect(wrong.actual).toMatch(/^MAX_ITERATIONS_EXCEEDED: /);
  });

  it('an answer that is JSON but breaks the schema says why', async () => {
    const outcome = await outcomeOf([{ text: '{"queue": "sales"}' }]);
    const [failure] = await checkExpectations(
      {
        noToolCalls: false,
        output: { schema: { type: 'object', properties: { queue: { enum: ['billing', 'tech'] } } } },
      },
      outcome,
      0,
      at,
    );
    expect(failure.message).toMatch(/^the answer is not valid against the schema: /);
    expect(failure.actual).toEqual({ queue: 'sales' });
  });
});

describe('subsetMatch', () => {
  it('mappings as subsets, lists item by item, scalars equal', () => {
    expect(subsetMatch({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 })).toBe(true);
    expect(subsetMatch({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
    expect(subsetMatch([{ a: 1 }], [{ a: 1, b: 2 }])).toBe(true);
    expect(subsetMatch([{ a: 1 }], [{ a: 1 }, { a: 2 }])).toBe(false);
    expect(subsetMatch({ a: undefined }, {})).toBe(false);
    expect(subsetMatch('1', 1)).toBe(false);
  });
});

describe('agentctl test arguments', () => {
  async function parse(argv: string[]): Promise<Invocation> {
    let seen: Invocation | undefined;
    const { program } = createProgram(async (invocation) => {
      seen = invocation;
      return 0;
    });
    program.exitOverride().configureOutput({ writeErr: () => undefined });
    await program.parseAsync(['node', 'agentctl', ...argv]);
    return seen as Invocation;
  }

  it('takes targets, a format and --update', async () => {
    const { command, options } = await parse(['test', 'a', 'tests/b.yaml', '--format', 'junit', '--update']);
    expect(command).toBe('test');
    expect(options).toMatchObject({ targets: ['a', 'tests/b.yaml'], format: 'junit', update: true });
    expect((await parse(['test'])).options.targets).toEqual([]);
    await expect(parse(['test', '--format', 'xml'])).rejects.toThrow(/argument 'xml' is invalid/);
  });
});
