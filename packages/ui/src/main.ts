// The dev UI's entry: builds the page's shell, follows the reload state, and shows the view the
// URL's fragment names. Every datum comes from agentctl's public HTTP API, same origin.
import './styles.css';
import { getJson, whenUnauthorized } from './api.js';
import type { ProjectStatus, ProjectView } from './api-types.js';
import { h, replace } from './dom.js';
import { plural } from './format.js';
import { formatRoute, parseRoute, VIEWS, type View } from './route.js';
import { StatusFeed } from './status-feed.js';
import { ChatView } from './views/chat-view.js';
import { GraphView } from './views/graph-view.js';
import { ReloadView } from './views/reload-view.js';
import { SessionsView } from './views/sessions-view.js';
import { signInPanel } from './views/sign-in-panel.js';

const graph = new GraphView();
const chat = new ChatView();
const sessions = new SessionsView();
const reload = new ReloadView();
const feed = new StatusFeed();
const views: Record<View, HTMLElement> = {
  graph: graph.element,
  chat: chat.element,
  sessions: sessions.element,
  reload: reload.element,
};
const titles: Record<View, string> = {
  graph: 'Project',
  chat: 'Chat',
  sessions: 'Sessions',
  reload: 'Reload',
};

const badge = h('a', { class: 'status-badge', href: formatRoute({ view: 'reload' }) }, '…');
const nav = h(
  'nav',
  { class: 'tabs' },
  VIEWS.map((view) => h('a', { href: formatRoute({ view }), 'data-nav': view }, titles[view])),
);
const main = h('main', {}, Object.values(views));
document.body.append(h('header', { class: 'top' }, h('h1', {}, 'agentctl'), nav, badge), main);

let locked = false;
whenUnauthorized(() => {
  locked = true;
  replace(main, signInPanel());
});

let shownGeneration: number | null | undefined;
// The project loads at once, beside the status; a status naming another generation loads it again.
let loading: Promise<void> | undefined;
async function loadProject(): Promise<void> {
  const project = await getJson<ProjectView>('/project');
  shownGeneration = project.generation;
  // The server answers, with a project to show: what it said when it did not is over.
  for (const banner of main.querySelectorAll('.banner')) banner.remove();
  graph.render(project);
  chat.setAgents(project.agents);
  route();
  // When the page first shows the project: what bench/ui-load.js reports as "ready".
  if (performance.getEntriesByName('agentctl:ready').length === 0) performance.mark('agentctl:ready');
}

function showStatus(status: ProjectStatus): void {
  badge.className = `status-badge ${status.ok ? 'ok' : 'broken'}`;
  badge.textContent = status.ok
    ? `generation ${status.generation ?? '–'}`
    : `broken save · ${plural(status.diagnostics.length, 'problem')}`;
  reload.render(status);
  // A new generation may have new agents: the graph and the chat's list follow it.
  loading = (loading ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => {
      if (status.generation !== shownGeneration) return loadProject();
    });
  loading.catch(report);
}

function route(): void {
  if (locked) return;
  const where = parseRoute(location.hash);
  for (const [view, element] of Object.entries(views)) element.hidden = view !== where.view;
  for (const link of nav.querySelectorAll<HTMLElement>('[data-nav]'))
    link.classList.toggle('current', link.dataset.nav === where.view);
  document.title = `${titles[where.view]} · agentctl`;
  if (where.view === 'chat') chat.show(where.agent, where.session);
  if (where.view === 'sessions') void sessions.show(where.session).catch(report);
}

function report(error: unknown): void {
  if (locked) return;
  main.prepend(h('div', { class: 'line error banner' }, `The server said: ${(error as Error).message}`));
}

window.addEventListener('hashchange', route);
// Back after the stream was lost: the next status loads the project whatever generation it names.
feed.onReconnect(() => {
  shownGeneration = undefined;
  // A chat whose run's stream was cut by the restart shows what agentctl kept of it.
  chat.resync();
});
feed.subscribe(showStatus);
route();
loading = loadProject();
loading.catch(report);
void feed.start().catch(report);
