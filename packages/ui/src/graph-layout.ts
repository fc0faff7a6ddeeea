import type { AgentNode } from './api-types.js';

/** An edge of the project graph. */
export interface GraphEdge {
  from: string;
  to: string;
  /**
   * `sub`: a sub-agent; `tool`: an agent called as a tool; `transfer`: a transfer not already a
   * sub-agent edge (one per pair of peers that transfer both ways).
   */
  kind: 'sub' | 'tool' | 'transfer';
}

/**
 * The agents as trees (connected groups, largest first), each in rows: roots first, each agent one
 * row below the deepest agent that contains it; and the edges between them.
 */
export interface GraphLayout {
  trees: AgentNode[][][];
  edges: GraphEdge[];
}

/**
 * Lays the agents out top-down by what contains what (sub-agents and agent tools), so a tree reads
 * from its root; each row keeps the order of the row above to cut crossings. Cycles (an agent tool
 * calling back up) are broken where they close. Transfers to a sub-agent are the sub-agent edge
 * already; the other transfers (to a parent or a peer) are edges of their own.
 */
export function layoutGraph(agents: readonly AgentNode[]): GraphLayout {
  const byName = new Map(agents.map((a) => [a.name, a]));
  const edges: GraphEdge[] = [];
  for (const agent of agents) {
    for (const to of agent.subAgents) if (byName.has(to)) edges.push({ from: agent.name, to, kind: 'sub' });
    for (const to of agent.agentTools) if (byName.has(to)) edges.push({ from: agent.name, to, kind: 'tool' });
    for (const to of agent.transfers) {
      // Peers transfer both ways: one edge says it.
      const back = edges.some((e) => e.kind === 'transfer' && e.from === to && e.to === agent.name);
      if (byName.has(to) && !agent.subAgents.includes(to) && !back)
        edges.push({ from: agent.name, to, kind: 'transfer' });
    }
  }
  const children = new Map<string, string[]>();
  const hasParent = new Set<string>();
  for (const edge of edges) {
    if (edge.kind === 'transfer') continue;
    children.set(edge.from, [...(children.get(edge.from) ?? []), edge.to]);
    hasParent.add(edge.to);
  }

  // Depth by longest containing path; a node on the current path is a cycle and is not followed.
  const depth = new Map<string, number>();
  const visit = (name: string, level: number, path: Set<string>) => {
    if (path.has(name) || (depth.get(name) ?? -1) >= level) return;
    depth.set(name, level);
    path.add(name);
    for (const child of children.get(name) ?? []) visit(child, level + 1, path);
    path.delete(name);
  };
  const roots = agents.filter((a) => !hasParent.has(a.name));
  for (const root of roots) visit(root.name, 0, new Set());
  // Agents only reachable through a cycle have no root: they start a tree of their own.
  for (const agent of agents) if (!depth.has(agent.name)) visit(agent.name, 0, new Set());

  const trees = groups(agents, edges).map((group) => {
    const rows: AgentNode[][] = [];
    for (const agent of group) {
      const level = depth.get(agent.name)!;
      rows[level] = [...(rows[level] ?? []), agent];
    }
    const order = new Map<string, number>();
    rows.forEach((row, r) => {
      if (r > 0) {
        const place = (a: AgentNode) =>
          Math.min(
            ...edges
              .filter((e) => e.to === a.name && e.kind !== 'transfer')
              .map((e) => order.get(e.from) ?? 1e9),
          );
        row.sort((a, b) => place(a) - place(b) || a.name.localeCompare(b.name));
      }
      for (const [i, a] of row.entries()) order.set(a.name, r * 1e4 + i);
    });
    return rows.filter(Boolean);
  });
  return { trees, edges };
}

// Agents joined by any edge, as groups: largest first, then by the first name (agents come sorted).
function groups(agents: readonly AgentNode[], edges: readonly GraphEdge[]): AgentNode[][] {
  const leader = new Map(agents.map((a) => [a.name, a.name]));
  const find = (name: string): string => {
    const up = leader.get(name)!;
    if (up === name) return name;
    const top = find(up);
    leader.set(name, top);
    return top;
  };
  for (const edge of edges) leader.set(find(edge.to), find(edge.from));
  const byLeader = new Map<string, AgentNode[]>();
  for (const agent of agents) {
    const key = find(agent.name);
    byLeader.set(key, [...(byLeader.get(key) ?? []), agent]);
  }
  return [...byLeader.values()].sort((a, b) => b.length - a.length);
}
