export { type OpenAIModelSpec, openaiFromSpec } from './openai-from-spec.js';
export { createOpenAIProvider, type OpenAIProviderOptions } from './openai-provider.js';
