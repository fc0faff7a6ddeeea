export { type GeminiErrorFacts, geminiErrorFacts } from './gemini-error.js';
export { googleFromSpec, THINKING_BUDGET_OF_EFFORT } from './google-from-spec.js';
export { GOOGLE_OPTIONS_SCHEMA } from './google-options-schema.js';
export { createGoogleProvider, type GoogleProviderOptions } from './google-provider.js';
export type { GoogleProviderData } from './to-gemini-contents.js';
export type { GoogleThinking } from './to-gemini-request.js';
