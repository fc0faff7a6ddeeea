export { anthropicFromSpec, THINKING_BUDGET_OF_EFFORT } from './anthropic-from-spec.js';
export { ANTHROPIC_OPTIONS_SCHEMA } from './anthropic-options-schema.js';
export { type AnthropicProviderOptions, createAnthropicProvider } from './anthropic-provider.js';
export type { ThinkingBlock } from './to-anthropic-messages.js';
