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
  401: 'missing or wrong bearer token',
  404: 'unknown agent or session',
  409: 'the session is running, paused (for a run) or not paused (for decisions)',
  413: 'the body is larger than the cap',
  429: 'too many runs in flight; see Retry-After',
  503: 'the server is shutting down',
};
const sse = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description: 'one `event: <type>` / `data: <event JSON>` per agent event, as `run --json`',
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
      'Runs the agents of an agentctl project. Every route but GET /health needs `Authorization: Bearer <token>` when tokens are set. Errors are `{ error: { code, message } }`.',
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
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
  security: [{ bearer: [] }],
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
          ...errors(400, 401, 404, 409, 413, 429, 503),
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
        responses: { '200': { description: 'events', content: { ...sse } }, ...errors(400, 401, 404) },
      },
    },
    '/sessions': {
      get: {
        summary: 'stored sessions, newest first',
        responses: { '200': { description: '{ sessions: [...] }' }, ...errors(401) },
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
        responses: { '204': { description: 'deleted' }, ...errors(400, 401, 404, 409) },
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
          ...errors(400, 401, 404, 409, 429, 503),
        },
      },
    },
    '/v1/models': {
      get: {
        summary: 'OpenAI-compatible: the agents as models',
        responses: { '200': { description: 'a model list' }, ...errors(401) },
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
