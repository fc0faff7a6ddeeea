/** The page's views. */
export const VIEWS = ['graph', 'chat', 'sessions', 'reload'] as const;

/** One of {@link VIEWS}. */
export type View = (typeof VIEWS)[number];

/** Where the page is: the view and what it shows, kept in the URL's fragment so links and reloads keep it. */
export interface Route {
  view: View;
  /** The agent to chat with. */
  agent?: string;
  /** The session the timeline (or the chat) shows. */
  session?: string;
}

/**
 * Reads a fragment such as `#view=sessions&session=ID`; `#agent=NAME` alone (what `agentctl dev --ui
 * NAME` prints) opens the chat with that agent; anything else opens the graph.
 */
export function parseRoute(hash: string): Route {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const agent = params.get('agent') || undefined;
  const session = params.get('session') || undefined;
  const asked = params.get('view');
  const view: View = VIEWS.includes(asked as View) ? (asked as View) : agent ? 'chat' : 'graph';
  return { view, agent, session };
}

/** The fragment of a route, the inverse of {@link parseRoute}. */
export function formatRoute(route: Route): string {
  const params = new URLSearchParams({ view: route.view });
  if (route.agent) params.set('agent', route.agent);
  if (route.session) params.set('session', route.session);
  return `#${params}`;
}
