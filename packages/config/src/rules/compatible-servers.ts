/**
 * Servers that speak the OpenAI API, by the names a first project gives them as a provider
 * (`ollama/llama3`), with where each listens by default: they are reached with `provider: openai`
 * and a `base_url`, not a provider of their own.
 */
export const OPENAI_COMPATIBLE_SERVERS: ReadonlyMap<string, { name: string; baseUrl: string }> = new Map([
  ['ollama', { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' }],
  ['vllm', { name: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' }],
  ['llamacpp', { name: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' }],
  ['llama.cpp', { name: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' }],
  ['llama-cpp', { name: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' }],
  ['lmstudio', { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' }],
  ['openrouter', { name: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1' }],
]);
