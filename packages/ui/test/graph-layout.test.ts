import { describe, expect, it } from 'vitest';
import type { AgentNode } from '../src/api-types.js';
import { layoutGraph } from '../src/graph-layout.js';

const agent = (name: string, more: Partial<AgentNode> = {}): AgentNode => ({
  name,
  type: 'llm',
  source: { file: 'agents/a.yaml', line: 1, column: 1 },
  subAgents: [],
  transfers: [],
  agentTools: [],
  tools: [],
  toolsets: [],
  runnable: true,
  ...more,
});

const names = (rows: AgentNode[][]) => rows.map((row) => row.map((a) => a.name));

describe('layoutGraph', () => {
  it('puts each tree in rows from its root, and transfers that are not sub-agents as edges of their own', () => {
    const { trees, edges } = layoutGraph([
      agent('billing', { transfers: ['triage', 'tech'] }),
      agent('hello'),
      agent('tech', { transfers: ['triage', 'billing'] }),
      agent('triage', {
        subAgents: ['billing', 'tech'],
        transfers: ['billing', 'tech'],
        agentTools: ['hello'],
      }),
    ]);
    expect(trees.map(names)).toEqual([[['triage'], ['billing', 'hello', 'tech']]]);
    expect(edges).toContainEqual({ from: 'triage', to: 'billing', kind: 'sub' });
    expect(edges).toContainEqual({ from: 'triage', to: 'hello', kind: 'tool' });
    expect(edges).toContainEqual({ from: 'billing', to: 'triage', kind: 'transfer' });
    // Sub-agents are transfer targets already; peers that transfer both ways get one edge.
    expect(edges.filter((e) => e.kind === 'transfer').map((e) => `${e.from}->${e.to}`)).toEqual([
      'billing->triage',
      'billing->tech',
      'tech->triage',
    ]);
  });

  it('places an agent below the deepest agent that contains it, and survives cycles of agent tools', () => {
    const { trees } = layoutGraph([
      agent('a', { subAgents: ['b'], agentTools: ['c'] }),
      agent('b', { subAgents: ['c'] }),
      agent('c', { agentTools: ['a'] }),
      agent('x', { agentTools: ['y'] }),
      agent('y', { agentTools: ['x'] }),
      agent('z'),
    ]);
    expect(trees.map(names)).toEqual([[['a'], ['b'], ['c']], [['x'], ['y']], [['z']]]);
  });
});
