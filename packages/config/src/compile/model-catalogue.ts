import type { ModelPricing } from '@agentctl/core';

/** What the catalogue knows of one model: limits and list prices (USD per million tokens). */
export interface ModelInfo {
  /** Tokens of input plus output the model can attend to. */
  contextWindow?: number;
  /** Most tokens one answer can have. */
  maxOutputTokens?: number;
  pricing: ModelPricing;
  /** Set when the provider has announced the model's retirement: what `validate` warns with. */
  deprecated?: string;
  /** Sampling settings the model refuses at any value but their default of 1 (reasoning models). */
  fixedSampling?: boolean;
}

/**
 * When the prices below were taken, and from where. List prices change: a model's `pricing:` in
 * YAML overrides its entry, and a model missing here simply reports no cost.
 *
 * Taken 2026-11-23 from stored copies of:
 * - OpenAI: developers.openai.com/api/docs/pricing (as summarised on 2026-11-06 by apis.io) and the
 *   GitHub Copilot price table (github/docs data/tables/copilot/models-and-pricing.yml), which
 *   repeats OpenAI's list prices with cached input; context windows from OpenAI's model pages.
 * - Anthropic: platform.claude.com/docs/en/docs/about-claude/pricing (cache write = 5-minute write;
 *   cache read = "cache hits and refreshes"). Newer models priced there (Opus 4.7, 4.8, 5) are left
 *   out until their API ids are confirmed.
 * - Google: ai.google.dev/gemini-api/docs/pricing, standard tier, prompts up to 200k tokens (as
 *   quoted by deploybase.ai, March 2026); longer prompts cost more and are not modelled here.
 */
export const CATALOGUE_DATE = '2026-11-23';

const m = (
  input: number,
  output: number,
  cacheRead: number | undefined,
  cacheWrite: number | undefined,
  contextWindow?: number,
  maxOutputTokens?: number,
): ModelInfo => ({
  contextWindow,
  maxOutputTokens,
  pricing: {
    input,
    output,
    ...(cacheRead !== undefined && { cacheRead }),
    ...(cacheWrite !== undefined && { cacheWrite }),
  },
});

// OpenAI's reasoning models refuse temperature and top_p other than 1 (HTTP 400 "Unsupported value").
const reasoning = (info: ModelInfo): ModelInfo => ({ ...info, fixedSampling: true });

const GPT41 = 1_047_576;
const GPT5 = 400_000;
const CLAUDE = 200_000;
const GEMINI = 1_048_576;

/** Known models by provider, then model id (without a date suffix). */
const CATALOGUE: Record<string, Record<string, ModelInfo>> = {
  openai: {
    'gpt-5': reasoning(m(1.25, 10, 0.125, undefined, GPT5, 128_000)),
    'gpt-5-mini': reasoning(m(0.25, 2, 0.025, undefined, GPT5, 128_000)),
    'gpt-5-nano': reasoning(m(0.05, 0.4, 0.005, undefined, GPT5, 128_000)),
    'gpt-5.2': m(1.75, 14, 0.175, undefined, GPT5, 128_000),
    'gpt-5.4': m(2.5, 15, 0.25, undefined),
    'gpt-5.4-mini': m(0.75, 4.5, 0.075, undefined),
    'gpt-4.1': m(2, 8, 0.5, undefined, GPT41, 32_768),
    'gpt-4.1-mini': m(0.4, 1.6, 0.1, undefined, GPT41, 32_768),
    'gpt-4.1-nano': m(0.1, 0.4, 0.025, undefined, GPT41, 32_768),
    'gpt-4o': m(2.5, 10, 1.25, undefined, 128_000, 16_384),
    'gpt-4o-mini': m(0.15, 0.6, 0.075, undefined, 128_000, 16_384),
    o3: reasoning(m(2, 8, 0.5, undefined, 200_000, 100_000)),
    'o4-mini': reasoning(m(1.1, 4.4, 0.275, undefined, 200_000, 100_000)),
  },
  anthropic: {
    'claude-opus-4-6': m(5, 25, 0.5, 6.25, CLAUDE),
    'claude-opus-4-5': m(5, 25, 0.5, 6.25, CLAUDE, 64_000),
    'claude-opus-4-1': m(15, 75, 1.5, 18.75, CLAUDE, 32_000),
    'claude-opus-4': m(15, 75, 1.5, 18.75, CLAUDE, 32_000),
    'claude-sonnet-4-6': m(3, 15, 0.3, 3.75, CLAUDE, 64_000),
    'claude-sonnet-4-5': {
      ...m(3, 15, 0.3, 3.75, CLAUDE, 64_000),
      // @anthropic-ai/sdk 1.x lists it in DEPRECATED_MODELS and warns on every request.
      deprecated: 'reaches end of life on 2026-11-30; use claude-sonnet-4-6',
    },
    'claude-sonnet-4': m(3, 15, 0.3, 3.75, CLAUDE, 64_000),
    'claude-haiku-4-5': m(1, 5, 0.1, 1.25, CLAUDE, 64_000),
    'claude-3-5-haiku': m(0.8, 4, 0.08, 1, CLAUDE, 8_192),
  },
  google: {
    'gemini-3-pro-preview': m(2, 12, undefined, undefined, GEMINI, 65_536),
    'gemini-2.5-pro': m(1.25, 10, 0.125, undefined, GEMINI, 65_536),
    'gemini-2.5-flash': m(0.3, 2.5, 0.03, undefined, GEMINI, 65_536),
    'gemini-2.5-flash-lite': m(0.1, 0.4, 0.01, undefined, GEMINI, 65_536),
  },
};

// Snapshot ids name their base model: gpt-4.1-mini-2025-04-14, claude-sonnet-4-5-20250929, ...-latest.
const SNAPSHOT = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * What the catalogue knows of `model` served by `provider`, or undefined. A model behind a custom
 * `base_url` (Ollama, vLLM) has its own name and is not found, so it reports no cost.
 */
export function modelInfo(provider: string, model: string): ModelInfo | undefined {
  if (!Object.hasOwn(CATALOGUE, provider)) return undefined;
  const models = CATALOGUE[provider];
  const id = Object.hasOwn(models, model) ? model : model.replace(SNAPSHOT, '');
  return Object.hasOwn(models, id) ? models[id] : undefined;
}

/** The providers whose catalogue knows `model` (an id written without its provider, `gpt-4.1-mini`). */
export function providersOfModel(model: string): string[] {
  return Object.keys(CATALOGUE).filter((provider) => modelInfo(provider, model) !== undefined);
}

/** The model ids the catalogue knows for `provider` (none for a provider it does not cover). */
export function catalogueIds(provider: string): string[] {
  return Object.hasOwn(CATALOGUE, provider) ? Object.keys(CATALOGUE[provider]) : [];
}
