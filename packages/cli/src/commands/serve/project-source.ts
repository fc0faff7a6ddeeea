import type { Runtime } from '@agentctl/config';
import type { Agent, SessionStore } from '@agentctl/core';
import {
  type AgentInfo,
  type AgentLease,
  type AgentSource,
  type ProjectStatusBoard,
  projectGraph,
} from '@agentctl/server';
import { agentSessionStore } from '../../session-store.js';

/** Where `serve` gets the runtime of each request: a fixed one, or the live generation with `--watch`. */
export interface RuntimeLease {
  runtime: Runtime;
  /** Its generation: 1 for a fixed project, one more per good reload with `--watch`. */
  generation: number;
  release(): void;
}

/**
 * The project as the server sees it: agents from the runtime `acquire` hands out (the same
 * generation for a whole run), sessions in each agent's memory or the project's file store; with
 * `project`, also the agent graph of the live generation and the reload state (the dev UI's view).
 */
export function projectSource(
  acquire: () => RuntimeLease | undefined,
  defaultStore: SessionStore,
  project?: { root: string; status: ProjectStatusBoard },
): AgentSource {
  const infoOf = (runtime: Runtime): AgentInfo[] =>
    [...runtime.agents.values()]
      .map((agent: Agent) => ({ name: agent.name, description: agent.description || undefined }))
      .sort((a, b) => a.name.localeCompare(b.name));
  const storeOf = (agent: Agent) => agentSessionStore(agent) ?? defaultStore;
  const source: AgentSource = {
    list() {
      const held = acquire();
      if (!held) return [];
      try {
        return infoOf(held.runtime);
      } finally {
        held.release();
      }
    },
    lease(name): AgentLease | undefined {
      const held = acquire();
      if (!held) return undefined;
      const agent = held.runtime.agents.get(name);
      if (!agent) {
        held.release();
        return undefined;
      }
      return { agent, store: storeOf(agent), release: held.release };
    },
    async stores() {
      const held = acquire();
      const stores = new Set<SessionStore>([defaultStore]);
      if (held) {
        for (const agent of held.runtime.agents.values()) stores.add(storeOf(agent));
        held.release();
      }
      return [...stores];
    },
  };
  if (!project) return source;
  const { root, status } = project;
  return {
    ...source,
    project() {
      const held = acquire();
      if (!held) return { generation: null, root, agents: [] };
      try {
        return { generation: held.generation, root, agents: projectGraph(held.runtime) };
      } finally {
        held.release();
      }
    },
    status: () => status.current,
    onStatus: (listener) => status.subscribe(listener),
  };
}
