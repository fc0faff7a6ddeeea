import { createAgent, Runner } from '@agentctl/core';
import { scriptedModel } from '@agentctl/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../../../test/support/otlp-receiver.js';
import { startTracing } from '../src/index.js';

// startTracing twice in one process (`--trace` and an OTLP endpoint, a test harness) must not
// register a second observer: each span reaches the loopback OTLP receiver once.

let receiver: OtlpReceiver;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The OTLP exporter reads its endpoint from the process, as in the CLI.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  await receiver.close();
});

async function runAgent(name: string): Promise<void> {
  const agent = createAgent({ name, provider: scriptedModel([{ text: `from ${name}` }]) });
  await new Runner({ agent }).run({ input: 'go' }).invocation;
}

const spansOf = (name: string) => receiver.spans.filter((s) => s.name === `invoke_agent ${name}`);

describe('startTracing started twice', () => {
  it('shares the running tracing: each span is exported once, the last shutdown flushes the rest', async () => {
    const first = await startTracing({ env: {} });
    const second = await startTracing({ env: {} });
    await runAgent('twice');
    // The first holder's shutdown flushes what its runs recorded, and tracing goes on for the other.
    await first.shutdown();
    expect(spansOf('twice')).toHaveLength(1);
    await runAgent('after-first');
    await second.shutdown();
    expect(spansOf('after-first')).toHaveLength(1);
    expect(spansOf('twice')).toHaveLength(1);
  });

  it('starts racing each other open one tracing', async () => {
    const both = await Promise.all([startTracing({ env: {} }), startTracing({ env: {} })]);
    await runAgent('raced');
    await Promise.all(both.map((t) => t.shutdown()));
    expect(spansOf('raced')).toHaveLength(1);
  });

  it('refuses a second start with other settings, naming both, and leaves the running one alone', async () => {
    const running = await startTracing({ env: {} });
    await expect(startTracing({ env: {}, captureContent: true })).rejects.toThrow(
      /tracing is already started in this process with other settings \(content off.*\); shut it down before starting it with content on/,
    );
    await runAgent('kept');
    await running.shutdown();
    expect(spansOf('kept')).toHaveLength(1);
    // Shut down, it starts again with the new settings.
    const again = await startTracing({ env: {}, captureContent: true });
    await runAgent('again');
    await again.shutdown();
    expect(spansOf('again')).toHaveLength(1);
  });

  it('flush exports what ended and tracing goes on', async () => {
    const tracing = await startTracing({ env: {} });
    await runAgent('flushed');
    await tracing.flush();
    expect(spansOf('flushed')).toHaveLength(1);
    await runAgent('after-flush');
    await tracing.shutdown();
    expect(spansOf('after-flush')).toHaveLength(1);
  });
});
