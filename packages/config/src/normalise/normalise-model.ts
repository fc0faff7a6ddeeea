import type { ModelDefinition } from '@agentctl/core';
import { parseDuration } from '@agentctl/core';
import { toScriptTurn } from '../compile/offline-provider.js';
import type { Registry } from '../registry.js';
import type { ModelSpec } from '../spec-types.js';
import { httpUrl } from './http-url.js';
import { normaliseOptions } from './normalise-options.js';
import { positiveDuration } from './positive-duration.js';

/**
 * The definition of a model spec that passed its schema (and had `${VAR}` resolved): the one place
 * that reads a model's YAML spelling. `extra_body` leaves `options` for its own field; the other
 * options are normalised by the provider's registered schema (camelCase, durations in ms).
 */
export function normaliseModel(spec: ModelSpec, registry?: Registry): ModelDefinition {
  const { extra_body, ...options } = spec.options ?? {};
  const r = spec.retry;
  const p = spec.pricing;
  const reasoning = spec.reasoning && {
    effort: spec.reasoning.effort,
    budgetTokens: spec.reasoning.budget_tokens,
  };
  return {
    name: spec.name,
    provider: spec.provider,
    model: spec.model,
    description: spec.description,
    baseUrl: httpUrl(spec.base_url, 'base_url'),
    apiKey: spec.api_key,
    temperature: spec.temperature,
    topP: spec.top_p,
    maxOutputTokens: spec.max_output_tokens,
    timeoutMs: positiveDuration(spec.timeout, 'timeout'),
    retry: r && {
      maxAttempts: r.max_attempts,
      initialDelayMs: parseDuration(r.initial_delay, 'retry.initial_delay'),
      maxDelayMs: parseDuration(r.max_delay, 'retry.max_delay'),
    },
    pricing: p && { input: p.input, output: p.output, cacheRead: p.cache_read, cacheWrite: p.cache_write },
    reasoning,
    parallelToolCalls: spec.parallel_tool_calls,
    options: normaliseOptions(options, registry?.describe('provider', spec.provider)?.schema),
    extraBody: extra_body as Record<string, unknown> | undefined,
    script: typeof spec.script === 'string' ? spec.script : spec.script?.map(toScriptTurn),
    cassette: spec.cassette,
    fallback: spec.fallback && {
      models: spec.fallback,
      cooldownMs: parseDuration(spec.cooldown, 'cooldown'),
    },
  };
}
