import { createAgent, InMemorySessionStore, offline } from '@agentctl/core';
import type { AgentSource } from '../../src/agent-source.js';

/** A source of one offline `echo` agent, its sessions in `store` (to see what a request left). */
export function echoSource(): AgentSource & { store: InMemorySessionStore } {
  const store = new InMemorySessionStore();
  const echo = createAgent({ name: 'echo', provider: offline('echo') });
  return {
    store,
    list: () => [{ name: 'echo' }],
    lease: (name) => (name === 'echo' ? { agent: echo, store, release: () => undefined } : undefined),
    stores: async () => [store],
  };
}
