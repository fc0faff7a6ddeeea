import { describe, expect, it, vi } from 'vitest';
import { createAgent, defineTool, offline, Runner, schemaValidator } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

// Counts the compiles the real ajv performs: the class is ajv's own, only `compile` is observed.
const compiles = vi.hoisted(() => ({ count: 0 }));
vi.mock('ajv/dist/2020.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('ajv/dist/2020.js')>();
  class CountingAjv extends real.Ajv2020 {
    override compile<T>(...args: Parameters<InstanceType<typeof real.Ajv2020>['compile']>) {
      compiles.count++;
      return super.compile<T>(...args);
    }
  }
  return { ...real, Ajv2020: CountingAjv };
});

describe('tool schemas are compiled once, however many runs start cold at once', () => {
  it('1,000 concurrent first runs of an agent make one compile of its tool schema', async () => {
    // `format` is beyond the plain validator: this schema takes Ajv's compile.
    let executed = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks one order up',
      parameters: {
        type: 'object',
        properties: {
          order: { type: 'integer', minimum: 1, description: 'herd test 1' },
          since: { type: 'string', format: 'date' },
        },
        required: ['order'],
        additionalProperties: false,
      },
      execute: () => {
        executed++;
        return 'found';
      },
    });
    const agent = createAgent({ name: 'herd', provider: offline('auto'), tools: [lookup] });
    const before = compiles.count;
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => new Runner({ agent }).run({ input: 'go' }).invocation),
    );
    expect(results.every((r) => r.status === 'complete')).toBe(true);
    expect(executed).toBe(1000);
    expect(compiles.count - before).toBe(1);
  });

  it('a plain tool schema is checked without Ajv: no compile, and the model reads the same wording', async () => {
    const calls: unknown[] = [
      { order: 0, extra: true },
      { order: 2, note: 'x' },
    ];
    const sent: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks one order up',
      parameters: {
        type: 'object',
        properties: { order: { type: 'integer', minimum: 1 }, note: { enum: ['a', 'b'] } },
        required: ['order'],
        additionalProperties: false,
      },
      execute: () => 'found',
    });
    const model = scriptedModel([
      {
        toolCalls: calls.map((args, i) => ({
          id: `c${i}`,
          name: 'lookup',
          arguments: args as Record<string, unknown>,
        })),
      },
      { text: 'done' },
    ]);
    const agent = createAgent({ name: 'plain', provider: model, tools: [lookup] });
    const before = compiles.count;
    const result = await new Runner({ agent }).run({ input: 'go' }).invocation;
    expect(result.status).toBe('complete');
    for (const message of model.requests[1]?.messages ?? [])
      if (message.role === 'tool') sent.push(String(message.content));
    expect(sent).toEqual([
      'Invalid arguments for lookup: arguments must NOT have additional properties ("extra"); arguments.order must be >= 1. Fix the arguments and call again.',
      'Invalid arguments for lookup: arguments.note must be equal to one of the allowed values: ["a","b"]. Fix the arguments and call again.',
    ]);
    expect(compiles.count - before).toBe(0);
  });

  it('a schema ajv refuses: callers at once share one failed compile, a later call compiles again', async () => {
    const bad = { type: 'object', properties: { n: { type: 'no-such-type' } } };
    const before = compiles.count;
    const [a, b] = await Promise.allSettled([schemaValidator(bad), schemaValidator(bad)]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    await expect(schemaValidator(bad)).rejects.toThrow(/no-such-type|type/);
    expect(compiles.count - before).toBe(2);
  });
});
