const error = { $ref: '#/components/schemas/Error' };
const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [
      String(code),
      { description: ERROR_TEXT[code], content: { 'application/json': { schema: error } } },
    ]),
  );
const ERROR_TEXT: Record<number, string> = {
  400: 'bad JSON or a bad field',
  401: 'missing or wrong bearer token (or page cookie)',
  403: 'a request authenticated by the page cookie that changes state came from another origin',
  404: 'unknown agent or session; for /project, a server not started on a project',
  409: "the session is running, paused (for a run), not paused (for decisions), or paused inside its parent (an agent tool's child session: decide on the parent), or a decided call is no longer the one pending (call_changed)",
  413: 'the body is larger than the cap',
  429: 'too many runs in flight (or, for /runs/{id}/events, followers open); see Retry-After',
  503: 'the server is shutting down, or what the request needs cannot be reached (the session store, or for queued runs the queue); see Retry-After',
};
const sse = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'one `event: <type>` / `data: <event JSON>` per agent event, as `run --json`; between events, a `: heartbeat` comment every `x-agentctl-heartbeat-ms` milliseconds (the `--heartbeat` of serve, 15 s by default)',
    },
  },
};
const runResult = {
  'application/json': { schema: { $ref: '#/components/schemas/RunResult' } },
};
const queued = {
  'application/json': { schema: { $ref: '#/components/schemas/Queued' } },
};

/** The OpenAPI 3.1 document of the native API, served at `/openapi.json`. */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'agentctl serve',
    version: '1',
    description:
      'Runs the agents of an agentctl project. Every route but GET /health needs `Authorization: Bearer <token>` (or the dev UI page cookie `agentctl_token`, set by `GET /ui/?token=<token>`) when tokens are set. Errors are `{ error: { code, message } }`.',
  },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      pageCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'agentctl_token',
        description:
          'set (HttpOnly, SameSite=Strict) by GET /ui/?token=<token>; a POST or DELETE it authenticates needs a same-origin Origin header (403 otherwise)',
      },
    },
    schemas: {
      SourcePosition: {
        type: 'object',
        required: ['file', 'line', 'column'],
        properties: {
          file: { type: 'string', description: 'relative to the project root, with `/`' },
          line: { type: 'integer', minimum: 1 },
          column: { type: 'integer', minimum: 1 },
        },
      },
      ToolNode: {
        type: 'object',
        required: ['name', 'kind'],
        properties: {
          name: { type: 'string' },
          kind: {
            type: 'string',
            description: 'builtin, module, command, http, a plugin tool kind, or mcp for a toolset',
          },
          source: { $ref: '#/components/schemas/SourcePosition' },
        },
      },
      AgentNode: {
        type: 'object',
        required: [
          'name',
          'type',
          'source',
          'subAgents',
          'transfers',
          'agentTools',
          'tools',
          'toolsets',
          'runnable',
        ],
        properties: {
          name: { type: 'string' },
          type: { type: 'string', description: 'llm, sequential, parallel, loop, a2a' },
          description: { type: 'string' },
          model: {
            type: 'string',
            description:
              "the model as the YAML names it (the project's defaults.model for an LLM agent without one)",
          },
          source: { $ref: '#/components/schemas/SourcePosition' },
          parent: { type: 'string', description: 'an inline sub-agent: the agent it is written in' },
          subAgents: { type: 'array', items: { type: 'string' } },
          transfers: { type: 'array', items: { type: 'string' }, description: 'agents it may transfer to' },
          agentTools: { type: 'array', items: { type: 'string' }, description: 'agents it calls as tools' },
          tools: { type: 'array', items: { $ref: '#/components/schemas/ToolNode' } },
          toolsets: { type: 'array', items: { $ref: '#/components/schemas/ToolNode' } },
          runnable: { type: 'boolean', description: 'false when it did not compile' },
        },
      },
      Project: {
        type: 'object',
        required: ['generation', 'root', 'agents'],
        properties: {
          generation: { type: ['integer', 'null'] },
          root: { type: 'string' },
          agents: {
            type: 'array',
            items: { $ref: '#/components/schemas/AgentNode' },
            description: 'sorted by name',
          },
        },
      },
      ProjectStatus: {
        type: 'object',
        required: ['watching', 'generation', 'ok', 'updatedAt', 'diagnostics'],
        properties: {
          watching: { type: 'boolean', description: 'saves reload the project (dev --ui, serve --watch)' },
          generation: { type: ['integer', 'null'], description: 'the live generation' },
          ok: { type: 'boolean', description: 'false while the last save is broken' },
          updatedAt: { type: 'number', description: 'ms since the epoch' },
          diagnostics: {
            type: 'array',
            description: 'of the last failed save; empty after a good one',
            items: {
              type: 'object',
              required: ['severity', 'code', 'message', 'file', 'line', 'column'],
              properties: {
                severity: { enum: ['error', 'warning'] },
                code: { type: 'string', description: 'the rule' },
                message: { type: 'string' },
                file: { type: 'string' },
                line: { type: 'integer' },
                column: { type: 'integer' },
              },
            },
          },
          changes: { type: 'string', description: 'what the last good reload changed, in one line' },
        },
      },
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
      RunRequest: {
        type: 'object',
        required: ['input'],
        properties: {
          input: { type: 'string', description: 'the user message' },
          sessionId: { type: 'string', description: 'continue (or create) this session; a new id otherwise' },
          userId: { type: 'string', description: 'the user whose `user:` state the run shares' },
          stream: { type: 'boolean', default: true, description: 'false: one JSON result instead of SSE' },
          async: {
            type: 'boolean',
            default: false,
            description: 'true: queue the run for a worker and answer 202 with its run id (needs a queue)',
          },
        },
      },
      Queued: {
        type: 'object',
        properties: {
          status: { const: 'queued' },
          runId: { type: 'string' },
          sessionId: { type: 'string' },
          events: { type: 'string', description: 'where the run streams: /runs/{runId}/events' },
        },
      },
      Decision: {
        type: 'object',
        required: ['callId', 'decision'],
        properties: {
          callId: { type: 'string' },
          decision: { enum: ['approve', 'deny', 'answer'] },
          reason: { type: 'string', description: 'told to the model when denied' },
          answer: { type: 'string', description: 'the answer to an input request' },
          name: {
            type: 'string',
            description:
              'with arguments: the call as the person deciding saw it; if the call now pending under callId differs (the session paused again and the id was reused), 409 call_changed and nothing runs',
          },
          arguments: { type: 'object', description: 'with name: the arguments the person saw' },
        },
      },
      RunResult: {
        type: 'object',
        properties: {
          status: { enum: ['complete', 'paused', 'error'] },
          output: { type: 'string' },
          sessionId: { type: 'string' },
          invocationId: { type: 'string' },
          usage: { type: 'object' },
          state: { type: 'object' },
          pending: { type: 'array', items: { type: 'object' } },
          duration: { type: 'number' },
          error: { type: 'object', description: 'when status is error: { code, message }' },
        },
      },
    },
  },
  security: [{ bearer: [] }, { pageCookie: [] }],
  paths: {
    '/health': {
      get: { summary: 'liveness, without auth', security: [], responses: { '200': { description: 'ok' } } },
    },
    '/agents': {
      get: {
        summary: 'the agents of the project',
        responses: { '200': { description: '{ agents: [{ name, description }] }' }, ...errors(401) },
      },
    },
    '/agents/{agent}/runs': {
      post: {
        summary: 'run an agent; the session id is in the x-agentctl-session header',
        parameters: [{ name: 'agent', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/RunRequest' } } },
        },
        responses: {
          '200': { description: 'events, or the result', content: { ...sse, ...runResult } },
          '202': { description: 'queued (`async: true`)', content: { ...queued } },
          ...errors(400, 401, 403, 404, 409, 413, 429, 503),
        },
      },
    },
    '/runs/{id}/events': {
      get: {
        summary:
          "a queued run's events as SSE from any node, each with its stream id; Last-Event-ID (or ?after=) resumes after it; ends with an `end` event",
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'after', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'events', content: { ...sse } },
          ...errors(400, 401, 404, 429, 503),
        },
      },
    },
    '/project': {
      get: {
        summary:
          'the agent graph of the live generation, each agent, tool and toolset with its file:line:column',
        responses: {
          '200': {
            description: 'the project',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Project' } } },
          },
          ...errors(401, 404),
        },
      },
    },
    '/project/status': {
      get: {
        summary: 'the reload state: live generation, and the diagnostics of a broken save',
        responses: {
          '200': {
            description: 'the status',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ProjectStatus' } } },
          },
          ...errors(401, 404),
        },
      },
    },
    '/project/events': {
      get: {
        summary:
          'the reload state as SSE: an `event: status` (ProjectStatus JSON) at connect and at each reload or failed save; `: heartbeat` comments every `--heartbeat` (15 s)',
        responses: {
          '200': {
            description: 'status events',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors(401, 404),
        },
      },
    },
    '/ui/{path}': {
      get: {
        summary:
          'the dev UI (`serve --ui`, `dev --ui`): static files, `/ui` redirects to `/ui/`; `?token=<token>` sets the page cookie and redirects without it; 401 is a short HTML page',
        parameters: [
          { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'token', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'the file; hashed assets are immutable, the rest no-cache' },
          '302': { description: 'signed in: the same path without the token' },
          '401': { description: 'no valid token: an HTML page saying how to get in' },
          '404': { description: 'no such file, or no page served' },
        },
      },
    },
    '/sessions': {
      get: {
        summary:
          'stored sessions, newest first by creation (ties by id); every one without `limit`, else one page of them and `nextCursor` when more follow',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'the most sessions to answer with, 1 to 1000',
            schema: { type: 'integer', minimum: 1, maximum: 1000 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'the `nextCursor` of the page before: the sessions after its last one',
            schema: { type: 'string' },
          },
          {
            name: 'parentId',
            in: 'query',
            required: false,
            description: "only the child sessions of this session (its agent tools' sessions)",
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: '{ sessions: [...], nextCursor?: string }',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['sessions'],
                  properties: {
                    sessions: { type: 'array', items: { type: 'object' } },
                    nextCursor: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errors(400, 401),
        },
      },
    },
    '/sessions/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: 'a session with its events, state and pending calls',
        responses: { '200': { description: 'the session' }, ...errors(400, 401, 404) },
      },
      delete: {
        summary: 'delete a session and its child sessions',
        responses: { '204': { description: 'deleted' }, ...errors(400, 401, 403, 404, 409) },
      },
    },
    '/sessions/{id}/decisions': {
      post: {
        summary: 'approve, deny or answer the pending calls of a paused session, resuming its run',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['decisions'],
                properties: {
                  decisions: { type: 'array', items: { $ref: '#/components/schemas/Decision' } },
                  stream: { type: 'boolean', default: true },
                  async: {
                    type: 'boolean',
                    default: false,
                    description: 'true: resume through the queue (202)',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'events, or the result', content: { ...sse, ...runResult } },
          '202': { description: 'queued (`async: true`)', content: { ...queued } },
          ...errors(400, 401, 403, 404, 409, 429, 503),
        },
      },
    },
    '/v1/models': {
      get: {
        summary: 'OpenAI-compatible: the agents as models',
        responses: { '200': { description: 'a model list' }, ...errors(401) },
      },
    },
    '/v1/models/{agent}': {
      get: {
        summary: 'OpenAI-compatible: one agent as a model',
        responses: { '200': { description: 'a model' }, ...errors(401, 404) },
      },
    },
    '/v1/chat/completions': {
      post: {
        summary:
          'OpenAI-compatible: `model` names the agent; header x-agentctl-session continues a stored session',
        responses: {
          '200': { description: 'a chat completion, or its chunks as SSE' },
          ...errors(400, 401, 404, 409, 429),
        },
      },
    },
    '/v1/responses': {
      post: {
        summary:
          'OpenAI-compatible Responses API: `model` names the agent, `input` a string or message items; header x-agentctl-session continues a stored session',
        responses: {
          '200': { description: 'a response object, or its events as SSE' },
          ...errors(400, 401, 404, 409, 429),
        },
      },
    },
    '/a2a/{agent}/.well-known/agent-card.json': {
      get: {
        summary: 'A2A agent card',
        responses: { '200': { description: 'the card' }, ...errors(401, 404) },
      },
    },
    '/a2a/{agent}': {
      post: {
        summary: 'A2A JSON-RPC endpoint',
        responses: { '200': { description: 'JSON-RPC response or SSE' }, ...errors(401, 404) },
      },
    },
  },
} as const;
