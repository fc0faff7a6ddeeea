// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { describe, expect, it } from 'vitest';
import type {
  AgentSpec,
  MemorySpec,
  MiddlewareSpec,
  ModelSpec,
  ProjectSpec,
  ScheduleSpec,
  TestSpec,
  ToolSpec,
  ToolsetSpec,
} from '../src/index.js';
import { KINDS, kindValidator, loadSchema } from '../src/schemas.js';

// One sample per kind with EVERY property set: `Required<>` makes the compiler demand each key of
// the TypeScript type, and the test demands each key of the schema. Either side drifting fails.
const agent: Required<AgentSpec> = {
  $schema: '../schemas/agentctl.schema.json',
  kind: 'agent',
  name: 'a',
  description: 'd',
  type: 'llm',
  // Only for `type: a2a` (a rule says so); the schema only checks their shape.
  url: 'http://127.0.0.1:8787/a2a/a',
  headers: { Authorization: 'Bearer x' },
  model: 'offline/echo',
  instruction: 'hi {{ input }}',
  instruction_file: './a.md',
  tools: [
    't',
    { builtin: 'current_time' },
    {
      builtin: 'http_get',
      allowed_hosts: ['x'],
      max_bytes: 1,
      max_entries: 1,
      root: '.',
      timeout: '1s',
      timezone: 'UTC',
      options: { y: 1 },
    },
    { module: './t.ts', export: 'x' },
    { toolset: 's' },
    { agent: 'b' },
  ],
  sub_agents: ['b', { name: 'c', instruction: 'inline' }],
  middleware: ['logging', { retry: { max_attempts: 2 } }],
  memory: 'm',
  output_schema: { type: 'object' },
  output_key: 'out',
  limits: { max_iterations: 3, max_tokens: 100, timeout: '2m', tool_timeout: 500 },
  approval: {
    tools: { t: 'always' },
    allow: ['t', { tool: 't*', args: { a: '/x/i' } }],
    deny: [{ tool: '*' }],
  },
  temperature: 0.5,
  top_p: 0.9,
  max_output_tokens: 100,
  max_iterations: 2,
  disallow_transfer_to_parent: true,
  disallow_transfer_to_peers: false,
  max_history: 20,
};
const model: Required<ModelSpec> = {
  $schema: 's',
  kind: 'model',
  name: 'm',
  description: 'd',
  provider: 'offline',
  model: 'script',
  base_url: 'http://127.0.0.1',
  api_key: '${KEY}',
  temperature: 0.1,
  top_p: 1,
  max_output_tokens: 10,
  timeout: '30s',
  retry: { max_attempts: 3, initial_delay: '1s', max_delay: '10s' },
  pricing: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25 },
  options: { x: 1 },
  reasoning: { effort: 'high', budget_tokens: 2048 },
  parallel_tool_calls: false,
  fallback: ['backup'],
  cooldown: '1m',
  script: [
    {
      match: 'a',
      text: 'b',
      tool_calls: [{ name: 't', arguments: {}, id: '1' }],
      error: { message: 'm', code: 'MODEL_ERROR', retryable: true },
      usage: { input_tokens: 1, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
      delay_ms: 1,
      fallback: false,
    },
  ],
  cassette: './c.json',
};
const { cassette: _cassette, ...modelWithoutCassette } = model;
const tool: Required<Omit<ToolSpec, 'http' | 'command'>> = {
  $schema: 's',
  kind: 'tool',
  name: 't',
  description: 'd',
  parameters: { type: 'object' },
  needs_approval: true,
  timeout: 1000,
  idempotent: true,
  module: { path: './t.ts', export: 'x' },
};
const httpTool: ToolSpec = {
  kind: 'tool',
  name: 'h',
  http: {
    method: 'POST',
    url: 'https://x',
    headers: { a: 'b' },
    body: { q: '{{ args.q }}' },
    allowed_hosts: ['x'],
    max_response_bytes: 10,
  },
};
const commandTool: ToolSpec = {
  kind: 'tool',
  name: 'c',
  command: { argv: ['echo'], stdin_json: true, cwd: '.', env: ['HOME'], max_output_bytes: 10 },
};
const toolset: Required<ToolsetSpec> = {
  $schema: 's',
  kind: 'toolset',
  name: 's',
  description: 'd',
  mcp: { command: 'npx', args: ['-y'], env: { A: 'b' }, cwd: '.' },
  include: ['a*'],
  exclude: ['b'],
  prefix: 'p_',
  approval: { '*': 'never' },
  timeout: '5s',
  start_timeout: '1m',
  max_bytes: 1000,
};
const middleware: Required<Omit<MiddlewareSpec, 'module' | 'export'>> = {
  $schema: 's',
  kind: 'middleware',
  name: 'm',
  description: 'd',
  builtin: 'retry',
  options: {},
};
const memory: Required<MemorySpec> = {
  $schema: 's',
  kind: 'memory',
  name: 'm',
  description: 'd',
  backend: 'file',
  url: 'postgres://db/x',
  path: '.agentctl',
  retention: { max_sessions: 5, max_age: '1h' },
  options: {},
};
const project: Required<ProjectSpec> = {
  $schema: 's',
  kind: 'project',
  name: 'p',
  description: 'd',
  include: ['agents/**/*.yaml'],
  exclude: ['x'],
  env_file: '.env',
  defaults: { model: 'offline/echo', memory: 'm' },
  tests: ['tests/**/*.yaml'],
  queue: {
    url: '${AGENTCTL_QUEUE_URL}',
    concurrency: 4,
    attempts: 3,
    backoff: { type: 'exponential', delay: '1s' },
    lock_duration: '30s',
    stalled_interval: '30s',
    max_stalled: 2,
  },
};
const test: Required<TestSpec> = {
  $schema: 's',
  kind: 'test',
  name: 't',
  description: 'd',
  agent: 'a',
  model: { a: 'offline/script' },
  state: { company: 'Acme' },
  timeout: '30s',
  turns: [
    {
      user: 'hi',
      expect: {
        output: { contains: 'a', equals: 'a', matches: '^a$', schema: { type: 'object' } },
        transfer: 'b',
        tool_calls: [{ name: 't', args: { x: 1 } }],
        no_tool_calls: true,
        state: { k: 'v' },
        max: { model_calls: 4, tokens: 2000 },
        pending: ['t'],
        error: 'MAX_ITERATIONS_EXCEEDED',
        judge: { model: 'judge', criteria: 'polite' },
      },
    },
    { approve: ['t'], deny: ['u'], reason: 'no', answer: { ask: 'yes' } },
  ],
};
const schedule: Required<ScheduleSpec> = {
  $schema: 's',
  kind: 'schedule',
  name: 'daily',
  description: 'd',
  cron: '0 8 * * 1-5',
  agent: 'a',
  input: 'write the digest',
  timezone: 'Europe/Paris',
  session: 'digest',
};

function schemaKeys(kind: string): string[] {
  const schema = loadSchema(kind) as { properties?: object; $defs?: { agent?: { properties: object } } };
  return Object.keys(schema.properties ?? schema.$defs?.agent?.properties ?? {}).sort();
}

describe('schema and TypeScript types agree', () => {
  const samples: Array<[string, object, string[]]> = [
    ['agent', agent, []],
    // A script model plays no cassette: the replay variant below has it.
    ['model', modelWithoutCassette, ['cassette']],
    ['tool', tool, ['http', 'command']],
    ['toolset', toolset, []],
    ['middleware', middleware, ['module', 'export']],
    ['memory', memory, []],
    ['project', project, []],
    ['test', test, []],
    ['schedule', schedule, []],
  ];
  it.each(samples)('%s: same keys, and the full sample validates', (kind, sample, leftOut) => {
    expect([...Object.keys(sample), ...leftOut].sort()).toEqual(schemaKeys(kind));
    const validate = kindValidator(kind as never);
    const valid = validate(sample);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the http and command variants validate, and the replay model', () => {
    const { script: _script, ...replay } = { ...model, model: 'replay' };
    expect(kindValidator('model')(replay)).toBe(true);
    expect(kindValidator('tool')(httpTool)).toBe(true);
    expect(kindValidator('tool')(commandTool)).toBe(true);
    expect(
      kindValidator('middleware')({ kind: 'middleware', name: 'm', module: './m.ts', export: 'x' }),
    ).toBe(true);
  });

  it('every property in every schema has a description', () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${path}/${i}`);
      } else if (node && typeof node === 'object') {
        const obj = node as Record<string, unknown>;
        if (obj.properties && typeof obj.properties === 'object') {
          for (const [key, prop] of Object.entries(
            obj.properties as Record<string, Record<string, unknown>>,
          )) {
            if (typeof prop === 'object' && !prop.description && !prop.$ref)
              missing.push(`${path}/properties/${key}`);
          }
        }
        // if/then/else hold conditions on properties already described, not new properties.
        for (const [key, value] of Object.entries(obj))
          if (!['if', 'then', 'else'].includes(key)) walk(value, `${path}/${key}`);
      }
    };
    for (const kind of ['common', 'agentctl', ...KINDS]) walk(loadSchema(kind), kind);
    expect(missing).toEqual([]);
  });
});
