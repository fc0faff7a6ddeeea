export { openaiFromSpec } from './openai-from-spec.js';
export { OPENAI_OPTIONS_SCHEMA } from './openai-options-schema.js';
export { createOpenAIProvider, type OpenAIProviderOptions } from './openai-provider.js';
export { type StrictSchemaProblem, strictOutputProblems } from './strict-output-schema.js';
