import type { AgentNode, ProjectView, ToolNode } from '../api-types.js';
import { h, replace } from '../dom.js';
import { formatSource } from '../format.js';
import { type GraphEdge, layoutGraph } from '../graph-layout.js';
import { formatRoute } from '../route.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * The project as a graph: one card per agent (type, model, description, tools, toolsets, each with
 * its `file:line:col`), in rows from the roots down, with SVG edges for sub-agents (solid), agent
 * tools (dashed) and other transfers (dotted).
 */
export class GraphView {
  readonly element = h('section', { class: 'view graph-view', 'data-view': 'graph' });
  #edges: GraphEdge[] = [];
  #canvas = h('div', { class: 'graph-canvas' });
  #svg = document.createElementNS(SVG, 'svg');

  constructor() {
    this.#svg.classList.add('graph-edges');
    new ResizeObserver(() => this.#drawEdges()).observe(this.#canvas);
  }

  /** Shows `project`. */
  render(project: ProjectView): void {
    const layout = layoutGraph(project.agents);
    this.#edges = layout.edges;
    replace(
      this.#canvas,
      this.#svg,
      layout.trees.map((rows) =>
        h(
          'div',
          { class: 'graph-tree' },
          rows.map((row) => h('div', { class: 'graph-row' }, row.map(card))),
        ),
      ),
    );
    replace(
      this.element,
      h(
        'header',
        { class: 'view-head' },
        h('h2', {}, 'Project'),
        h('span', { class: 'muted' }, `${project.agents.length} agents · ${project.root}`),
        h(
          'span',
          { class: 'legend' },
          h('span', { class: 'edge-sub' }, 'sub-agent'),
          h('span', { class: 'edge-tool' }, 'agent tool'),
          h('span', { class: 'edge-transfer' }, 'transfer'),
        ),
      ),
      project.agents.length === 0 ? h('p', { class: 'muted' }, 'No agents (yet).') : this.#canvas,
    );
    requestAnimationFrame(() => this.#drawEdges());
  }

  // Edges are drawn from where the cards landed, so the layout itself is plain CSS.
  #drawEdges(): void {
    const box = this.#canvas.getBoundingClientRect();
    this.#svg.setAttribute('width', String(this.#canvas.scrollWidth));
    this.#svg.setAttribute('height', String(this.#canvas.scrollHeight));
    this.#svg.replaceChildren();
    const place = (name: string) => {
      const card = this.#canvas.querySelector<HTMLElement>(`[data-agent="${CSS.escape(name)}"]`);
      const r = card?.getBoundingClientRect();
      return (
        r && {
          left: r.left - box.left,
          right: r.right - box.left,
          top: r.top - box.top,
          bottom: r.bottom - box.top,
        }
      );
    };
    for (const edge of this.#edges) {
      const from = place(edge.from);
      const to = place(edge.to);
      if (!from || !to) continue;
      const path = document.createElementNS(SVG, 'path');
      path.setAttribute('d', curve(from, to));
      path.setAttribute('class', `edge edge-${edge.kind}`);
      path.setAttribute('data-edge', `${edge.from}->${edge.to}`);
      this.#svg.appendChild(path);
    }
  }
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

// From one card to another: bottom to top between rows, side to side within a row.
function curve(from: Box, to: Box): string {
  const x1 = (from.left + from.right) / 2;
  const x2 = (to.left + to.right) / 2;
  if (to.top >= from.bottom || from.top >= to.bottom) {
    const down = to.top >= from.bottom;
    const y1 = down ? from.bottom : from.top;
    const y2 = down ? to.top : to.bottom;
    const bend = Math.max(30, Math.abs(y2 - y1) / 2) * (down ? 1 : -1);
    return `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
  }
  const right = x2 > x1;
  const sx = right ? from.right : from.left;
  const ex = right ? to.left : to.right;
  const y = (Math.max(from.top, to.top) + Math.min(from.bottom, to.bottom)) / 2;
  const bend = Math.max(20, Math.abs(ex - sx) / 2) * (right ? 1 : -1);
  return `M${sx},${y} C${sx + bend},${y} ${ex - bend},${y} ${ex},${y}`;
}

function card(agent: AgentNode): HTMLElement {
  return h(
    'article',
    { class: `agent-card type-${agent.type}`, 'data-agent': agent.name },
    h(
      'header',
      {},
      h('strong', { class: 'agent-name' }, agent.name),
      h('span', { class: 'badge' }, agent.type),
      agent.runnable &&
        h(
          'a',
          { class: 'chat-link', href: formatRoute({ view: 'chat', agent: agent.name }), title: 'Chat' },
          'chat →',
        ),
    ),
    agent.model && h('div', { class: 'model' }, agent.model),
    agent.description && h('p', { class: 'description' }, agent.description),
    h('div', { class: 'source' }, formatSource(agent.source)),
    agent.parent && h('div', { class: 'muted' }, `inline in ${agent.parent}`),
    list('tools', agent.tools),
    list('toolsets', agent.toolsets),
    agent.transfers.length > 0 &&
      h('div', { class: 'transfers' }, `transfers to: ${agent.transfers.join(', ')}`),
  );
}

function list(title: string, items: ToolNode[]): HTMLElement | false {
  return (
    items.length > 0 &&
    h(
      'ul',
      { class: `tool-list ${title}` },
      items.map((tool) =>
        h(
          'li',
          {},
          h('span', { class: 'tool-name' }, tool.name),
          h('span', { class: 'badge small' }, tool.kind),
          tool.source && h('span', { class: 'source' }, formatSource(tool.source)),
        ),
      ),
    )
  );
}
