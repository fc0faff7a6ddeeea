import type { ModelDefinition, StreamEvent } from '@agentctl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { googleFromSpec } from '../src/index.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';
import { geminiText, sse } from './support/gemini-wire.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function last(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent | undefined> {
  let out: StreamEvent | undefined;
  for await (const event of iterable) out = event;
  return out;
}

// Sends one request from a definition and returns the body the server received.
async function bodyOf(def: Partial<ModelDefinition>) {
  server = await startFakeServer([sse(geminiText('ok'))], '');
  const provider = googleFromSpec({
    name: 'm',
    provider: 'google',
    model: 'gemini-test',
    baseUrl: server.url,
    apiKey: 'AIza-spec',
    retry: { maxAttempts: 1 },
    options: {},
    ...def,
  });
  const response = await provider.chat({ model: '', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.content).toBe('ok');
  return { body: server.requests[0].body, url: server.requests[0].url };
}

describe('googleFromSpec', () => {
  it('builds without a key and fails at the first call naming GEMINI_API_KEY', async () => {
    const saved = process.env.GEMINI_API_KEY;
    delete process.env.GEMINI_API_KEY;
    try {
      const provider = googleFromSpec({
        name: 'm',
        provider: 'google',
        model: 'gemini-2.5-flash',
        options: {},
      });
      expect(provider.name).toBe('google');
      const event = await last(provider.stream({ model: '', messages: [{ role: 'user', content: 'hi' }] }));
      expect((event as { error: Error }).error.message).toBe(
        "google model gemini-2.5-flash: no API key; set GEMINI_API_KEY (or api_key in the model's YAML)",
      );
    } finally {
      if (saved !== undefined) process.env.GEMINI_API_KEY = saved;
    }
  });

  it('reads the key from GEMINI_API_KEY', async () => {
    const saved = process.env.GEMINI_API_KEY;
    process.env.GEMINI_API_KEY = 'AIza-from-env';
    try {
      await bodyOf({ apiKey: undefined });
      expect(server?.requests[0].headers['x-goog-api-key']).toBe('AIza-from-env');
    } finally {
      if (saved === undefined) delete process.env.GEMINI_API_KEY;
      else process.env.GEMINI_API_KEY = saved;
    }
  });

  it('applies temperature, max_output_tokens and extra_body from the definition', async () => {
    const { body } = await bodyOf({
      temperature: 0.2,
      maxOutputTokens: 300,
      extraBody: { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
    });
    expect(body.generationConfig).toEqual({ temperature: 0.2, maxOutputTokens: 300 });
    expect(body.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
  });

  it('maps reasoning.budget_tokens to thinkingBudget', async () => {
    const { body } = await bodyOf({ model: 'gemini-3-pro-preview', reasoning: { budgetTokens: 4000 } });
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 4000 });
  });

  it('maps reasoning.effort to a thinking budget on Gemini 2.x', async () => {
    const { body, url } = await bodyOf({ model: 'gemini-2.5-flash', reasoning: { effort: 'medium' } });
    expect(url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 8192 });
  });

  it('maps reasoning.effort to thinkingLevel on Gemini 3', async () => {
    const { body } = await bodyOf({ model: 'gemini-3-flash-preview', reasoning: { effort: 'low' } });
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'LOW' });
  });

  it('lets the typed options override reasoning, and sets the API version', async () => {
    const { body, url } = await bodyOf({
      model: 'gemini-2.5-pro',
      reasoning: { effort: 'high' },
      options: { thinkingBudget: -1, includeThoughts: true, apiVersion: 'v1alpha' },
    });
    expect(url).toBe('/v1alpha/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    expect(body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: -1, includeThoughts: true });
  });
});
