// One fake HTTP server serves both wires; it lives beside the OpenAI tests.
export * from '../../../provider-openai/test/support/fake-server.js';
