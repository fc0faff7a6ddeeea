import { describe, expect, it } from 'vitest';
import { type AgentError, type AttemptControl, type StreamAssembler, sdkAttempt } from '../src/index.js';

// An assembler as a provider package writes it, reading `{ text }` items and trusting their shape.
class TextAssembler implements StreamAssembler<{ text: { value: string } }> {
  text = '';
  complete = false;
  reportedUsage = undefined;
  push(item: { text: { value: string } }) {
    this.text += item.text.value;
    this.complete = true;
    return [{ type: 'token' as const, text: item.text.value }];
  }
  finish() {
    return [
      {
        type: 'done' as const,
        response: { content: this.text, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } },
      },
    ];
  }
}

const control: AttemptControl = {
  attempt: 1,
  signal: new AbortController().signal,
  touch: () => undefined,
  alive: () => undefined,
  timedOut: false,
  stalled: false,
};

async function run(items: unknown[]) {
  const out: unknown[] = [];
  try {
    for await (const event of sdkAttempt({
      provider: 'acme',
      model: 'm1',
      control,
      signal: undefined,
      call: { apiKey: 'k', secrets: ['k'], timeoutMs: 1000 },
      assembler: new TextAssembler() as StreamAssembler<unknown>,
      open: async () =>
        (async function* () {
          yield* items;
        })(),
    }))
      out.push(event);
    return { out };
  } catch (error) {
    return { out, error: error as AgentError };
  }
}

describe('sdkAttempt and events of unexpected shapes', () => {
  it('skips an event that is no object', async () => {
    const { out, error } = await run([null, 42, 'x', [1], { text: { value: 'hi' } }]);
    expect(error).toBeUndefined();
    expect(out.at(-1)).toMatchObject({ type: 'done', response: { content: 'hi' } });
  });

  it("says the server sent an event it cannot read, quoting it, not the assembler's TypeError", async () => {
    const { error } = await run([{ text: null }]);
    expect(error?.code).toBe('PROVIDER_ERROR');
    expect(error?.message).toBe(
      'acme model m1: request failed (the server sent an event that cannot be read: {"text":null})',
    );
    expect(error?.retryable).toBe(false);
  });
});
