import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '@agentctl/config';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveEvents } from '../../../test/support/live-events.js';
import { type CompiledProject, compileYaml } from '../../../test/support/yaml-project.js';
import type { AgentSource } from '../src/agent-source.js';
import { projectGraph } from '../src/project-graph.js';
import { ProjectStatusBoard } from '../src/project-status-board.js';
import type { ProjectStatus, ProjectView } from '../src/project-view.js';
import { listen, shutdownAll, stopAll } from './support/listen.js';

const DESK = `kind: agent
name: triage
description: Routes questions
model: offline/echo
tools:
  - lookup
  - builtin: current_time
  - toolset: docs
  - agent: summarizer
sub_agents:
  - billing
  - name: tech
    description: Technical help
    model: offline/echo
---
kind: agent
name: billing
model: offline/echo
disallow_transfer_to_peers: true
---
kind: agent
name: summarizer
`;
const REPORT = `kind: agent
name: report
type: sequential
sub_agents: [draft, review]
---
kind: agent
name: draft
model: offline/echo
---
kind: agent
name: review
model: offline/echo
`;
// The real filesystem MCP server (a devDependency of the repository): compiling connects to it.
const MCP_SERVER = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);
const TOOLS = `kind: tool
name: lookup
description: Looks an order up
parameters: { type: object, properties: { id: { type: string } } }
command:
  argv: [echo, "{{ args.id }}"]
---
kind: toolset
name: docs
mcp: { command: node, args: [${JSON.stringify(MCP_SERVER)}, .] }
`;

let project: CompiledProject;
beforeAll(async () => {
  project = await compileYaml({
    'agentctl.yaml': 'kind: project\nname: graph\ndefaults: { model: house }\n',
    'agents/models.yaml': 'kind: model\nname: house\nprovider: offline\nmodel: echo\n',
    'agents/desk.yaml': DESK,
    'agents/report.yaml': REPORT,
    'agents/tools.yaml': TOOLS,
  });
});
afterAll(() => project.close());
afterEach(stopAll);

// A source over the compiled project, as the command line makes one; `left` agents did not compile.
function sourceOf(board: ProjectStatusBoard, left: string[] = []): AgentSource {
  const agents = new Map([...project.runtime.agents].filter(([name]) => !left.includes(name)));
  return {
    list: () => [],
    lease: () => undefined,
    stores: async () => [],
    project: () => ({
      generation: board.current.generation,
      root: project.runtime.root,
      agents: projectGraph({ specs: project.runtime.specs, agents }),
    }),
    status: () => board.current,
    onStatus: (listener) => board.subscribe(listener),
  };
}

const broken: Diagnostic = {
  file: 'agents/desk.yaml',
  line: 4,
  col: 8,
  endLine: 4,
  endCol: 20,
  severity: 'error',
  rule: 'unresolved-reference',
  message: 'no model named "offline/nope"',
};

describe('GET /project', () => {
  it('draws every agent from the YAML: where it is written, sub-agents, transfers, agent tools, tools and toolsets', async () => {
    const url = await listen({ source: sourceOf(new ProjectStatusBoard(false, 1), ['review']) });
    const response = await fetch(`${url}/project`);
    expect(response.status).toBe(200);
    const view = (await response.json()) as ProjectView;
    expect(view.generation).toBe(1);
    expect(view.root).toBe(project.runtime.root);
    expect(view.agents.map((a) => a.name)).toEqual([
      'billing',
      'draft',
      'report',
      'review',
      'summarizer',
      'tech',
      'triage',
    ]);
    const agent = (name: string) => view.agents.find((a) => a.name === name)!;
    expect(agent('triage')).toEqual({
      name: 'triage',
      type: 'llm',
      description: 'Routes questions',
      model: 'offline/echo',
      source: { file: 'agents/desk.yaml', line: 2, column: 7 },
      subAgents: ['billing', 'tech'],
      transfers: ['billing', 'tech'],
      agentTools: ['summarizer'],
      tools: [
        { name: 'lookup', kind: 'command', source: { file: 'agents/tools.yaml', line: 2, column: 7 } },
        { name: 'current_time', kind: 'builtin', source: { file: 'agents/desk.yaml', line: 7, column: 5 } },
      ],
      toolsets: [{ name: 'docs', kind: 'mcp', source: { file: 'agents/tools.yaml', line: 9, column: 7 } }],
      runnable: true,
    });
    // An inline sub-agent names the agent it is written in and may go back to it or to its peer.
    expect(agent('tech')).toMatchObject({
      parent: 'triage',
      source: { file: 'agents/desk.yaml', line: 12, column: 11 },
      transfers: ['triage', 'billing'],
    });
    // The rule the runtime applies: no transfer to peers when the YAML says so.
    expect(agent('billing').transfers).toEqual(['triage']);
    // Steps of a workflow transfer nowhere; the workflow lists them as sub-agents.
    expect(agent('report')).toMatchObject({
      type: 'sequential',
      subAgents: ['draft', 'review'],
      transfers: [],
    });
    expect(agent('draft').transfers).toEqual([]);
    // Without a model of its own, an LLM agent shows the project's default; a workflow shows none.
    expect(agent('summarizer').model).toBe('house');
    expect(agent('report').model).toBeUndefined();
    expect(agent('review').runnable).toBe(false);
  });

  it('is 404 on a source that has no project (an app made in code)', async () => {
    const url = await listen({ source: { list: () => [], lease: () => undefined, stores: async () => [] } });
    for (const path of ['/project', '/project/status', '/project/events']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'no_project' } });
    }
  });
});

describe('GET /project/status and /project/events', () => {
  it('reports the reload state, and pushes each failed save and each reload to every listener', async () => {
    const board = new ProjectStatusBoard(true, 1);
    const url = await listen({ source: sourceOf(board) });
    const first = (await (await fetch(`${url}/project/status`)).json()) as ProjectStatus;
    expect(first).toEqual({
      watching: true,
      generation: 1,
      ok: true,
      updatedAt: expect.any(Number),
      diagnostics: [],
    });

    const response = await fetch(`${url}/project/events`);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = liveEvents(response);
    try {
      const atConnect = await stream.waitFor((e) => e.event === 'status');
      expect(JSON.parse(atConnect.data)).toEqual(first);

      board.failed([broken]);
      const failed = JSON.parse((await stream.waitFor((e) => e.data.includes('"ok":false'))).data);
      expect(failed).toEqual({
        watching: true,
        generation: 1,
        ok: false,
        updatedAt: expect.any(Number),
        diagnostics: [
          {
            severity: 'error',
            code: 'unresolved-reference',
            message: 'no model named "offline/nope"',
            file: 'agents/desk.yaml',
            line: 4,
            column: 8,
          },
        ],
      });
      expect(failed.updatedAt).toBeGreaterThanOrEqual(first.updatedAt);
      expect(await (await fetch(`${url}/project/status`)).json()).toEqual(failed);

      board.reloaded(2, '1 changed: ~triage');
      const fixed = JSON.parse((await stream.waitFor((e) => e.data.includes('"generation":2'))).data);
      expect(fixed).toMatchObject({
        generation: 2,
        ok: true,
        diagnostics: [],
        changes: '1 changed: ~triage',
      });
    } finally {
      await stream.close();
    }
  });

  it('sends heartbeat comments while nothing changes, and forgets a listener that went away', async () => {
    const board = new ProjectStatusBoard(false, 1);
    let listeners = 0;
    const source = sourceOf(board);
    const url = await listen({
      source: {
        ...source,
        onStatus: (listener) => {
          listeners++;
          const stop = board.subscribe(listener);
          return () => {
            listeners--;
            stop();
          };
        },
      },
      heartbeatMs: 20,
    });
    const stream = liveEvents(await fetch(`${url}/project/events`));
    await stream.waitFor((e) => e.comment === 'heartbeat');
    expect(listeners).toBe(1);
    await stream.close();
    // The server learns of the closed connection at its next write, a heartbeat away.
    for (let i = 0; i < 500 && listeners > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(listeners).toBe(0);
  });
});

describe('shutting down', () => {
  it('ends the open /project/events streams, so no browser tab holds the server up', async () => {
    const url = await listen({ source: sourceOf(new ProjectStatusBoard(true, 1)) });
    const stream = liveEvents(await fetch(`${url}/project/events`));
    await stream.waitFor((e) => e.event === 'status');
    await shutdownAll();
    // Ended by the server, not cut when the lingering connections were closed.
    expect(await stream.finished).toBe('end');
  });
});

describe('/openapi.json', () => {
  it('documents the project routes and the page, every $ref pointing at a schema it has', async () => {
    const url = await listen({ source: sourceOf(new ProjectStatusBoard(false, 1)) });
    const doc = await (await fetch(`${url}/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/project', '/project/status', '/project/events', '/ui/{path}']),
    );
    expect(doc.components.securitySchemes.pageCookie).toMatchObject({ in: 'cookie', name: 'agentctl_token' });
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map(
      (m) => m[1],
    );
    expect(refs).toEqual(expect.arrayContaining(['Project', 'ProjectStatus', 'AgentNode', 'ToolNode']));
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
    // The documented shape is the one served.
    const project = await (await fetch(`${url}/project`)).json();
    const required = doc.components.schemas.AgentNode.required as string[];
    for (const agent of project.agents) for (const key of required) expect(agent, key).toHaveProperty(key);
  });
});
