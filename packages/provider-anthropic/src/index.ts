export { type AnthropicModelSpec, anthropicFromSpec } from './anthropic-from-spec.js';
export { type AnthropicProviderOptions, createAnthropicProvider } from './anthropic-provider.js';
export type { ThinkingBlock } from './to-anthropic-messages.js';
