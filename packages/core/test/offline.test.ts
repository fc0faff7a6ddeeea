import { describe, expect, it } from 'vitest';
import {
  AutoModel,
  createAgent,
  defineTool,
  EchoModel,
  offline,
  ScriptModel,
  sampleValue,
  schemaValidator,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

describe('the offline models', () => {
  it('echo streams the user message word by word with estimated usage', async () => {
    const events = [];
    for await (const e of new EchoModel().stream({
      model: 'echo',
      messages: [{ role: 'user', content: 'one two three' }],
    }))
      events.push(e);
    expect(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text)).toEqual([
      'one ',
      'two ',
      'three',
    ]);
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    expect(
      (done as { response: { usage: { inputTokens: number; outputTokens: number } } }).response.usage,
    ).toEqual({
      inputTokens: 4,
      outputTokens: 4,
    });
  });

  it('echo answers a response format with JSON that fits it', async () => {
    const schema = {
      type: 'object',
      properties: { queue: { enum: ['billing', 'tech'] } },
      required: ['queue'],
    };
    const result = await createAgent({ name: 'a', provider: offline('echo'), outputSchema: schema }).run('x');
    expect(result.output).toEqual({ queue: 'billing' });
  });

  it('script fails loudly on an unexpected extra call', async () => {
    const model = new ScriptModel([{ text: 'only one' }], { source: 'triage.script.yaml' });
    const agent = createAgent({ name: 'a', provider: model });
    await agent.run('first');
    await expect(agent.run('second')).rejects.toThrow(
      'triage.script.yaml: unexpected model call #2: the script has no turn left; last user message: "second"',
    );
  });

  it('script fails loudly on unconsumed turns', async () => {
    const model = scriptedModel([{ text: 'a' }, { toolCalls: [{ name: 'x' }] }, { text: 'c' }]);
    await createAgent({ name: 'a', provider: model }).run('go');
    expect(() => model.assertConsumed()).toThrow(
      '2 scripted turn(s) were never used: #2 (calls x), #3 ("c")',
    );
  });

  it('script picks turns by the last user message when they say so', async () => {
    const model = scriptedModel([
      { match: 'billing', text: 'to billing' },
      { match: /tech|bug/, text: 'to tech' },
    ]);
    const agent = createAgent({ name: 'a', provider: model });
    expect((await agent.run('I found a bug')).output).toBe('to tech');
    expect((await agent.run('billing question')).output).toBe('to billing');
    model.assertConsumed();
    const strict = scriptedModel([{ match: 'billing', text: 'x' }]);
    await expect(createAgent({ name: 'a', provider: strict }).run('hello')).rejects.toThrow(
      /no remaining turn matches/,
    );
  });

  it('script goes on where a continued conversation stopped (a session resumed in a new process)', async () => {
    const turns = [{ toolCalls: [{ name: 'add', arguments: { a: 1 } }] }, { text: 'done' }];
    const first = scriptedModel(turns);
    const history = [
      { role: 'user' as const, content: 'go' },
      {
        role: 'assistant' as const,
        content: null,
        toolCalls: [{ id: 'x', name: 'add', arguments: { a: 1 } }],
      },
      { role: 'tool' as const, toolCallId: 'x', content: '1' },
    ];
    const response = await first.chat({ model: 'script', messages: history });
    expect(response.content).toBe('done');
    first.assertConsumed();
    const fresh = scriptedModel(turns);
    expect(
      (await fresh.chat({ model: 'script', messages: [{ role: 'user', content: 'go' }] })).toolCalls[0].name,
    ).toBe('add');
  });

  it('auto calls every tool once with schema-valid arguments, then summarises', async () => {
    const seen: Record<string, unknown>[] = [];
    const parameters = {
      type: 'object',
      properties: {
        plan: { enum: ['gold', 'silver'] },
        version: { const: 2 },
        seats: { type: 'integer', minimum: 3, maximum: 9 },
        ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        code: { type: 'string', minLength: 10 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        nested: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
      },
      required: ['plan', 'version', 'seats', 'ratio', 'email', 'when', 'code', 'tags', 'nested'],
      additionalProperties: false,
    };
    const order = defineTool({
      name: 'order',
      description: 'orders',
      parameters,
      execute: (args) => {
        seen.push(args);
        return 'ordered';
      },
    });
    const ping = defineTool({ name: 'ping', description: 'pings', parameters: {}, execute: () => 'pong' });
    const result = await createAgent({ name: 'a', provider: new AutoModel(), tools: [order, ping] }).run(
      'go',
    );
    expect(seen).toHaveLength(1);
    expect((await schemaValidator(parameters))(seen[0])).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ plan: 'gold', version: 2, seats: 3 });
    expect(result.toolCalls.map((c) => c.name)).toEqual(['order', 'ping']);
    expect(result.output).toBe('Called 2 tool(s):\n- order: ordered\n- ping: pong');
    expect(result.usage.iterations).toBe(2);
  });

  it('auto still pauses on a tool that needs approval', async () => {
    const danger = defineTool({
      name: 'wipe',
      description: 'wipes',
      parameters: {},
      needsApproval: true,
      execute: () => 'wiped',
    });
    const result = await createAgent({ name: 'a', provider: offline('auto'), tools: [danger] }).run('go');
    expect(result.status).toBe('paused');
    expect(result.pending?.[0].call.name).toBe('wipe');
  });

  it('sampleValue honours bounds it is given', () => {
    expect(sampleValue({ type: 'integer', exclusiveMinimum: 5, multipleOf: 4 })).toBe(8);
    expect(sampleValue({ type: 'number', maximum: -2 })).toBe(-2);
    expect(sampleValue({ type: 'string', maxLength: 3 })).toBe('exa');
    expect(sampleValue({ anyOf: [{ type: 'boolean' }, { type: 'string' }] })).toBe(true);
    expect(sampleValue({ type: ['null', 'integer'] })).toBe(1);
  });
});
