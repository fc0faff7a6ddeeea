import type { Agent, SessionStore } from '@agentctl/core';
import type { ProjectStatus, ProjectView } from './project-view.js';

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
  /** The project's agent graph for `GET /project`; without it (a source made in code) that route is 404. */
  project?(): ProjectView;
  /** The reload state for `GET /project/status`; given together with `onStatus`. */
  status?(): ProjectStatus;
  /** Calls `listener` at each reload or failed save (`GET /project/events`); returns what stops it. */
  onStatus?(listener: (status: ProjectStatus) => void): () => void;
}
