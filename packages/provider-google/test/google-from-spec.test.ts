import type { ModelDefinition } from '@agentctl/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sse } from '../../../test/support/fake-server.js';
import { firstCallError } from '../../../test/support/stream-events.js';
import { fakeServers } from '../../../test/support/wire-harness.js';
import { googleFromSpec } from '../src/index.js';
import { geminiText } from './support/gemini-wire.js';

const start = fakeServers('');
afterEach(() => {
  vi.unstubAllEnvs();
});

// Sends one request from a definition and returns the body the server received.
async function bodyOf(def: Partial<ModelDefinition>) {
  const server = await start([sse(geminiText('ok'))]);
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
  const [request] = server.requests;
  return { body: request.body, url: request.url, headers: request.headers };
}

describe('googleFromSpec', () => {
  it('builds without a key and fails at the first call naming GEMINI_API_KEY', async () => {
    vi.stubEnv('GEMINI_API_KEY', undefined);
    const provider = googleFromSpec({
      name: 'm',
      provider: 'google',
      model: 'gemini-2.5-flash',
      options: {},
    });
    expect(provider.name).toBe('google');
    const error = await firstCallError(provider);
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe(
      "google model gemini-2.5-flash: no API key; set GEMINI_API_KEY (or api_key in the model's YAML)",
    );
  });

  it('reads the key from GEMINI_API_KEY', async () => {
    vi.stubEnv('GEMINI_API_KEY', 'AIza-from-env');
    const { headers } = await bodyOf({ apiKey: undefined });
    expect(headers['x-goog-api-key']).toBe('AIza-from-env');
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

  it("sends cached_content as the request's cachedContent and the headers of options on the request", async () => {
    const { body, headers } = await bodyOf({
      options: { cachedContent: 'cachedContents/abc123', headers: { 'x-team': 'desk' } },
    });
    expect(body.cachedContent).toBe('cachedContents/abc123');
    expect(headers['x-team']).toBe('desk');
  });
});
