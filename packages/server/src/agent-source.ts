import type { Agent, SessionStore } from '@agentctl/core';

/** What `GET /agents` tells about an agent. */
export interface AgentInfo {
  name: string;
  description?: string;
}

/** An agent of the live project, held until `release` so a reload never disposes it mid-run. */
export interface AgentLease {
  agent: Agent;
  /** Where this agent's sessions live (the same store `agentctl run` uses). */
  store: SessionStore;
  release(): void;
}

/**
 * Where the server finds agents and sessions. The command line implements it over a compiled
 * project (or a watched one with `--watch`), so the server never builds a registry itself.
 */
export interface AgentSource {
  /** The agents that can be run, sorted by name. */
  list(): AgentInfo[];
  /** The named agent, or undefined when the project has none by that name. */
  lease(name: string): AgentLease | undefined;
  /** Every store sessions can be in, for listing and finding a session by id. */
  stores(): Promise<SessionStore[]>;
}
