import { describe, expect, it } from 'vitest';
import { CATALOGUE_DATE, modelInfo } from '../src/index.js';

describe('modelInfo', () => {
  it('knows current OpenAI, Anthropic and Gemini models with limits and prices', () => {
    expect(modelInfo('openai', 'gpt-4.1-mini')).toEqual({
      contextWindow: 1_047_576,
      maxOutputTokens: 32_768,
      pricing: { input: 0.4, output: 1.6, cacheRead: 0.1 },
    });
    expect(modelInfo('anthropic', 'claude-sonnet-4-5')?.pricing).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(modelInfo('google', 'gemini-2.5-flash')?.contextWindow).toBe(1_048_576);
    expect(CATALOGUE_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('finds a dated snapshot or -latest alias under its base model', () => {
    expect(modelInfo('openai', 'gpt-4.1-mini-2025-04-14')).toBe(modelInfo('openai', 'gpt-4.1-mini'));
    expect(modelInfo('anthropic', 'claude-sonnet-4-5-20250929')).toBe(
      modelInfo('anthropic', 'claude-sonnet-4-5'),
    );
    expect(modelInfo('anthropic', 'claude-3-5-haiku-latest')).toBe(
      modelInfo('anthropic', 'claude-3-5-haiku'),
    );
  });

  it('knows nothing of other models, providers or object keys', () => {
    expect(modelInfo('openai', 'llama3.1')).toBeUndefined();
    expect(modelInfo('ollama', 'gpt-4.1-mini')).toBeUndefined();
    expect(modelInfo('openai', 'toString')).toBeUndefined();
    expect(modelInfo('constructor', 'x')).toBeUndefined();
  });
});
