import { describe, expect, it } from 'vitest';
import { AgentError, createAgent, type Middleware, Runner } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { add } from './support/tools.js';

// A model that calls `add` forever, so only the iteration limit stops it.
function looping() {
  return scriptedModel(
    Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] })),
  );
}

function endReasons(): { seen: string[]; middleware: Middleware } {
  const seen: string[] = [];
  return {
    seen,
    middleware: async (action, next) => {
      if (action.type === 'loop_end') seen.push(action.payload.reason);
      return next();
    },
  };
}

describe('one runtime: agent.run and Runner are the same executor', () => {
  it('middleware sees the same loop_end reason for a limit on both paths', async () => {
    const direct = endReasons();
    const agent = createAgent({
      name: 'a',
      provider: looping(),
      tools: [add],
      maxIterations: 2,
      middleware: [direct.middleware],
    });
    await expect(agent.run('go')).rejects.toMatchObject({ code: 'MAX_ITERATIONS_EXCEEDED' });

    const viaRunner = endReasons();
    const same = createAgent({
      name: 'a',
      provider: looping(),
      tools: [add],
      maxIterations: 2,
      middleware: [viaRunner.middleware],
    });
    const error = await new Runner({ agent: same }).run({ input: 'go' }).invocation.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('MAX_ITERATIONS_EXCEEDED');

    expect(direct.seen).toEqual(['max_iterations']);
    expect(viaRunner.seen).toEqual(['max_iterations']);
  });

  it('agent.run produces the session events a runner stores: ids, branch, user author, run_end on failure', async () => {
    const events: { type: string; author: string }[] = [];
    const agent = createAgent({ name: 'a', provider: looping(), tools: [add], maxIterations: 1 });
    const failure = await agent.run('go', { onEvent: (e) => events.push(e) }).result.catch((e: unknown) => e);
    expect((failure as AgentError).code).toBe('MAX_ITERATIONS_EXCEEDED');
    expect(events[0]).toMatchObject({ type: 'run_start' });
    expect(events[1]).toMatchObject({ type: 'message', author: 'user' });
    expect(events.at(-2)).toMatchObject({ type: 'error' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'error' });
  });

  it('a paused agent.run resumes from its JSON checkpoint through the runner', async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 2 } }] },
      { text: 'four' },
    ]);
    const agent = createAgent({
      name: 'a',
      provider: model,
      tools: [add],
      approvalPolicy: () => 'ask',
    });
    const paused = await agent.run('2+2?');
    expect(paused.status).toBe('paused');
    const checkpoint = JSON.parse(JSON.stringify(paused.checkpoint));
    expect(checkpoint.invocation.pending[0].call.id).toBe('c1');
    const done = await agent.resume(checkpoint, [{ callId: 'c1', approve: true }]);
    expect(done.output).toBe('four');
    expect(done.toolCalls).toMatchObject([{ name: 'add', result: 4 }]);
  });
});
