import { describe, expect, it } from 'vitest';
import { createRegistry, normalise } from '../src/index.js';

const registry = createRegistry();

describe('normalise: one raw spec in, one camelCase definition out', () => {
  it("fills an agent's defaults and types its tool and middleware entries by their registered schemas", () => {
    const agent = normalise(
      'agent',
      {
        name: 'a',
        instruction_file: 'a.md',
        tools: [
          't',
          { builtin: 'shell', timeout: '2s', options: { max_output_bytes: 10 } },
          { module: 'm.ts' },
        ],
        sub_agents: ['b', { name: 'c' }],
        middleware: ['logging', { retry: { max_attempts: 3, initial_delay: '1s' } }],
        limits: { timeout: '2m', tool_timeout: 500 },
        disallow_transfer_to_peers: true,
      },
      registry,
    );
    expect(agent).toMatchObject({
      type: 'llm',
      instructionFile: 'a.md',
      headers: {},
      subAgents: ['b', 'c'],
      limits: { timeoutMs: 120_000, toolTimeoutMs: 500 },
      approval: { tools: {}, allow: [], deny: [] },
      disallowTransferToPeers: true,
    });
    expect(agent.tools).toEqual([
      { kind: 'tool', name: 't' },
      { kind: 'builtin', name: 'shell', options: { maxOutputBytes: 10, timeout: 2000 } },
      { kind: 'module', path: 'm.ts', export: undefined },
    ]);
    expect(agent.middleware).toEqual([
      { name: 'logging', options: {} },
      { name: 'retry', options: { maxAttempts: 3, initialDelay: 1000 } },
    ]);
  });

  it('gives a tool its registered kind and defaults, a memory its default backend, a toolset its ms', () => {
    expect(
      normalise(
        'tool',
        { kind: 'tool', name: 'x', timeout: '1s', command: { argv: ['echo'], stdin_json: true } },
        registry,
      ),
    ).toMatchObject({
      kind: 'command',
      timeoutMs: 1000,
      command: { argv: ['echo'], stdinJson: true, env: [], allowDash: [] },
    });
    expect(normalise('tool', { kind: 'tool', name: 'y', http: { url: 'http://h' } }, registry).http).toEqual({
      method: 'GET',
      url: 'http://h',
      headers: {},
      body: undefined,
      allowedHosts: undefined,
      maxResponseBytes: undefined,
    });
    expect(
      normalise(
        'memory',
        { kind: 'memory', name: 'm', retention: { max_sessions: 3, max_age: '1h' } },
        registry,
      ),
    ).toEqual({
      name: 'm',
      description: undefined,
      backend: 'file',
      path: undefined,
      url: undefined,
      retention: { maxSessions: 3, maxAgeMs: 3_600_000 },
      options: {},
    });
    expect(
      normalise(
        'toolset',
        { kind: 'toolset', name: 's', mcp: { url: 'http://h' }, timeout: '30s' },
        registry,
      ),
    ).toMatchObject({ mcp: { url: 'http://h' }, timeoutMs: 30_000 });
    expect(
      normalise(
        'middleware',
        { kind: 'middleware', name: 'r', builtin: 'retry', options: { max_delay: '2s' } },
        registry,
      ),
    ).toEqual({
      name: 'r',
      description: undefined,
      builtin: 'retry',
      module: undefined,
      export: 'default',
      options: { maxDelay: 2000 },
    });
    expect(normalise('project', { kind: 'project', env_file: '.env.local' }, registry)).toMatchObject({
      envFile: '.env.local',
      defaults: {},
    });
  });

  it('throws on a duration the schema could not see (one that came from a variable)', () => {
    expect(() =>
      normalise('tool', { kind: 'tool', name: 'x', timeout: 'soon', module: { path: 'm.ts' } }, registry),
    ).toThrow(/timeout: "soon" is not a duration/);
  });
});
