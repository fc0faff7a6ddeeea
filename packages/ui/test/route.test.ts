import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute } from '../src/route.js';

describe('the page route in the URL fragment', () => {
  it('opens the chat on the agent `agentctl dev --ui NAME` names, and the graph otherwise', () => {
    expect(parseRoute('#agent=triage')).toEqual({ view: 'chat', agent: 'triage', session: undefined });
    expect(parseRoute('')).toEqual({ view: 'graph', agent: undefined, session: undefined });
    expect(parseRoute('#view=nonsense')).toMatchObject({ view: 'graph' });
  });

  it('round-trips every view with its agent and session, names escaped', () => {
    for (const route of [
      { view: 'graph' as const },
      { view: 'chat' as const, agent: 'a b&c' },
      { view: 'sessions' as const, session: 'id/1?x' },
      { view: 'reload' as const },
    ])
      expect(parseRoute(formatRoute(route))).toEqual({ agent: undefined, session: undefined, ...route });
  });
});
