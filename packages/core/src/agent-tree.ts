import type { Agent } from './agent.js';

/** Sets each sub-agent's `parent`, and fails on a name used twice or an agent placed under two parents. */
export function linkTree(root: Agent): void {
  const seen = new Map<string, Agent>();
  const visit = (agent: Agent, parent: Agent | undefined) => {
    const existing = seen.get(agent.name);
    if (existing) {
      throw new TypeError(
        existing === agent
          ? `agent ${agent.name} appears twice in the tree (an agent can have only one parent)`
          : `two agents in the tree are named ${agent.name}`,
      );
    }
    seen.set(agent.name, agent);
    if (parent) agent.parent = parent;
    for (const child of agent.subAgents) visit(child, agent);
  };
  visit(root, undefined);
}

/** The agent with this name in the tree under `root` (root included), or undefined. */
export function findAgent(root: Agent, name: string): Agent | undefined {
  let found: Agent | undefined;
  walkAgents(root, (agent) => {
    if (agent.name !== name) return;
    found = agent;
    return false;
  });
  return found;
}

/** The agents from `root` down to the named agent, excluding the root; undefined when not found. */
export function findAgentPath(root: Agent, name: string): Agent[] | undefined {
  if (root.name === name) return [];
  for (const child of root.subAgents) {
    const path = findAgentPath(child, name);
    if (path) return [child, ...path];
  }
  return undefined;
}

/**
 * Visits the tree depth-first, parents before children. The visitor gets each agent and its depth
 * (root = 0); returning `false` stops the walk.
 */
export function walkAgents(
  root: Agent,
  // biome-ignore lint/suspicious/noConfusingVoidType: a visitor that returns nothing keeps walking
  visitor: (agent: Agent, depth: number) => boolean | undefined | void,
): void {
  const visit = (agent: Agent, depth: number): boolean => {
    if (visitor(agent, depth) === false) return false;
    for (const child of agent.subAgents) if (!visit(child, depth + 1)) return false;
    return true;
  };
  visit(root, 0);
}

/** Every agent of the tree, depth-first. */
export function listAgents(root: Agent): Agent[] {
  const out: Agent[] = [];
  walkAgents(root, (agent) => {
    out.push(agent);
  });
  return out;
}

/** The dotted branch of an agent: its ancestors' names and its own, from the root. */
export function branchOf(agent: Agent): string {
  const names: string[] = [];
  for (let current: Agent | undefined = agent; current; current = current.parent) names.unshift(current.name);
  return names.join('.');
}
