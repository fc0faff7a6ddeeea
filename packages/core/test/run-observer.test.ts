import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  agentTool,
  createAgent,
  defineTool,
  InMemorySessionStore,
  type Middleware,
  type ModelProvider,
  type ObservedInvocation,
  type ObservedModelCall,
  type ObservedToolCall,
  observeRuns,
  offline,
  Runner,
} from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function watch() {
  const events: Array<{ event: AgentEvent; invocation: ObservedInvocation }> = [];
  const calls: Array<{ call: ObservedModelCall; outcome?: string; ended?: number }> = [];
  stops.push(
    observeRuns({
      event: (event, invocation) => events.push({ event, invocation }),
      modelCall: (call) => {
        const entry: { call: ObservedModelCall; outcome?: string; ended?: number } = { call };
        calls.push(entry);
        return {
          end: (response, ended) => {
            entry.outcome = `end:${response.content ?? ''}:${response.usage.outputTokens}`;
            entry.ended = ended;
          },
          fail: (error, ended) => {
            entry.outcome = `fail:${error.code}`;
            entry.ended = ended;
          },
        };
      },
    }),
  );
  return { events, calls };
}

describe('run observers', () => {
  it('see every event once, and an agent tool child under its own invocation with its parent call', async () => {
    const seen = watch();
    const summarizer = createAgent({ name: 'summarizer', provider: scriptedModel([{ text: 'short' }]) });
    const writer = createAgent({
      name: 'writer',
      provider: scriptedModel([
        { toolCalls: [{ name: 'summarizer', arguments: { request: 'sum' }, id: 'c1' }] },
        { text: 'done' },
      ]),
      tools: [agentTool(summarizer)],
    });
    const store = new InMemorySessionStore();
    const run = new Runner({ agent: writer, store }).run({ input: 'go', sessionId: 'p' });
    const streamed: AgentEvent[] = [];
    for await (const e of run) streamed.push(e);
    const result = await run.invocation;
    // The caller's stream carries the child's events too; observers get each exactly once.
    expect(seen.events.map((s) => s.event.id).sort()).toEqual(streamed.map((e) => e.id).sort());
    expect(new Set(seen.events.map((s) => s.event.id)).size).toBe(seen.events.length);
    const child = seen.events.find((s) => s.event.author === 'summarizer')!.invocation;
    expect(child).toMatchObject({ agent: summarizer, parent: { sessionId: 'p', callId: 'c1' } });
    expect(child.invocationId).not.toBe(result.invocationId);
    const own = seen.events.find((s) => s.event.type === 'run_start')!.invocation;
    expect(own).toEqual({
      invocationId: result.invocationId,
      sessionId: 'p',
      agent: writer,
      parent: undefined,
    });
    expect(seen.calls.map((c) => [c.call.agent, c.call.branch, c.call.provider, c.outcome])).toEqual([
      ['writer', 'writer', 'offline', expect.stringMatching(/^end::/)],
      ['summarizer', 'writer.summarizer', 'offline', expect.stringMatching(/^end:short:/)],
      ['writer', 'writer', 'offline', expect.stringMatching(/^end:done:/)],
    ]);
    expect(seen.calls[0].call.request.messages[0]).toMatchObject({ role: 'user', content: 'go' });
  });

  it("are handed the clock readings a model call starts and ends at, which its usage event's duration is", async () => {
    const seen = watch();
    // Four words 25 ms apart: the call takes 75 ms or more.
    const agent = createAgent({ name: 'slow', provider: offline('echo', { delayMs: 25 }) });
    const before = performance.now();
    const run = new Runner({ agent }).run({ input: 'one two three four' });
    const usage: number[] = [];
    for await (const e of run) if (e.type === 'usage') usage.push(e.duration);
    const after = performance.now();
    const [{ call, ended }] = seen.calls;
    expect(seen.calls).toHaveLength(1);
    expect(call.started).toBeGreaterThanOrEqual(before);
    expect(ended).toBeLessThanOrEqual(after);
    expect(ended! - call.started).toBeGreaterThanOrEqual(74);
    expect(usage).toEqual([Math.round(ended! - call.started)]);
  });

  it('are told when a model call fails, and an observer that throws changes nothing', async () => {
    const seen = watch();
    stops.push(
      observeRuns({
        event: () => {
          throw new Error('observer bug');
        },
        modelCall: () => {
          throw new Error('observer bug');
        },
      }),
    );
    const agent = createAgent({
      name: 'flaky',
      provider: scriptedModel([{ error: { message: 'upstream down', code: 'MODEL_ERROR' } }]),
    });
    await expect(new Runner({ agent }).run({ input: 'hi' }).invocation).rejects.toMatchObject({
      code: 'MODEL_ERROR',
    });
    expect(seen.calls.map((c) => c.outcome)).toEqual(['fail:MODEL_ERROR']);
    expect(seen.events.map((s) => s.event.type)).toEqual(
      expect.arrayContaining(['run_start', 'agent_start', 'error', 'run_end']),
    );
  });

  it("are told a call stopped by its run's signal failed as aborted, and an observation that throws changes nothing", async () => {
    // Alone, as tracing usually is: its observation is handed to the call as it is.
    stops.push(
      observeRuns({
        modelCall: () => ({
          end: () => {
            throw new Error('observer bug');
          },
          fail: () => {
            throw new Error('observer bug');
          },
        }),
      }),
    );
    const answered = createAgent({ name: 'fine', provider: scriptedModel([{ text: 'ok' }]) });
    expect((await new Runner({ agent: answered }).run({ input: 'hi' }).invocation).output).toBe('ok');
    for (const stop of stops.splice(0)) stop();
    const seen = watch();
    // A provider that answers only when its request's signal stops it.
    const hanging: ModelProvider = {
      name: 'hanging',
      chat: () => Promise.reject(new Error('unused')),
      async *stream(params) {
        await new Promise((_, reject) =>
          params.signal?.addEventListener('abort', () => reject(new Error('stream closed'))),
        );
        yield { type: 'token', text: 'never' };
      },
    };
    const controller = new AbortController();
    const run = new Runner({ agent: createAgent({ name: 'slow', provider: hanging }) }).run({
      input: 'hi',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(run.invocation).rejects.toMatchObject({ code: 'ABORTED' });
    await expect.poll(() => seen.calls.map((c) => c.outcome)).toEqual(['fail:ABORTED']);
  });

  it('are told each tool call that runs, with its timeout and its readings, and when it ends however it ends', async () => {
    const calls: Array<{ call: ObservedToolCall; ends: number[] }> = [];
    stops.push(
      observeRuns({
        toolCall: (call) => {
          const entry = { call, ends: [] as number[] };
          calls.push(entry);
          return { end: (ended) => entry.ends.push(ended) };
        },
      }),
      // An observer whose hook throws, and one that watches nothing, change nothing.
      observeRuns({
        toolCall: () => {
          throw new Error('observer bug');
        },
      }),
      observeRuns({
        toolCall: () => ({
          end: () => {
            throw new Error('observer bug');
          },
        }),
      }),
    );
    const sync = defineTool({ name: 'sync', description: 's', parameters: {}, execute: () => 'a' });
    const slow = defineTool({
      name: 'slow',
      description: 's',
      parameters: {},
      timeout: 5000,
      execute: () => new Promise((resolve) => setTimeout(() => resolve('b'), 30)),
    });
    const broken = defineTool({
      name: 'broken',
      description: 'b',
      parameters: {},
      execute: () => {
        throw new Error('no');
      },
    });
    const provider = scriptedModel([
      {
        toolCalls: [
          { name: 'sync', arguments: {}, id: 't1' },
          { name: 'slow', arguments: {}, id: 't2' },
          { name: 'broken', arguments: {}, id: 't3' },
        ],
      },
      { toolCalls: [{ name: 'sync', arguments: {}, id: 't4' }] },
      { text: 'done' },
    ]);
    let through = 0;
    const counting: Middleware = (action, next) => {
      if (action.type === 'tool_call') through++;
      return next(action);
    };
    const agent = createAgent({ name: 'worker', provider, tools: [sync, slow, broken], toolTimeout: 700 });
    const before = performance.now();
    const result = await new Runner({ agent }).run({ input: 'go' }).invocation;
    expect(result.output).toBe('done');
    expect(calls.map((c) => [c.call.callId, c.call.name, c.call.timeoutMs, c.call.agent])).toEqual([
      ['t1', 'sync', 700, 'worker'],
      ['t2', 'slow', 5000, 'worker'],
      ['t3', 'broken', 700, 'worker'],
      ['t4', 'sync', 700, 'worker'],
    ]);
    for (const { call, ends } of calls) {
      expect(ends).toHaveLength(1);
      expect(call.started).toBeGreaterThanOrEqual(before);
      expect(ends[0]).toBeGreaterThanOrEqual(call.started);
      expect(call.invocationId).toBe(result.invocationId);
    }
    const slowCall = calls[1] as { call: ObservedToolCall; ends: number[] };
    expect((slowCall.ends[0] as number) - slowCall.call.started).toBeGreaterThanOrEqual(25);

    // Through a middleware, the call is observed once, around what the middleware runs.
    calls.length = 0;
    const wrapped = createAgent({
      name: 'wrapped',
      provider: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {}, id: 'm1' }] }, { text: 'ok' }]),
      tools: [slow],
      middleware: [counting],
    });
    await new Runner({ agent: wrapped }).run({ input: 'go' }).invocation;
    expect(through).toBe(1);
    expect(calls.map((c) => [c.call.name, c.call.timeoutMs, c.ends.length])).toEqual([['slow', 5000, 1]]);
  });

  it('cost nothing once removed: a run after the last one is removed is not observed', async () => {
    const seen = watch();
    for (const stop of stops.splice(0)) stop();
    const agent = createAgent({ name: 'quiet', provider: scriptedModel([{ text: 'ok' }]) });
    const result = await new Runner({ agent }).run({ input: 'hi' }).invocation;
    expect(result.output).toBe('ok');
    expect(seen.events).toEqual([]);
    expect(seen.calls).toEqual([]);
  });
});
