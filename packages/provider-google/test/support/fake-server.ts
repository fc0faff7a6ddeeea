// One fake HTTP server serves every wire; it lives beside the OpenAI tests.
export * from '../../../provider-openai/test/support/fake-server.js';
