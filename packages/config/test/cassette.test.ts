// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} interpolation under test.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Cassette, emptyCassette, type ModelProvider } from '@agentctl/core';
import { describe, expect, it } from 'vitest';
import {
  compileProject,
  createRegistry,
  formatDiagnostic,
  loadProject,
  readCassette,
  writeCassette,
} from '../src/index.js';
import { project } from './helpers.js';

const CASSETTE: Cassette = {
  version: 1,
  interactions: [
    {
      provider: 'openai',
      request: { model: 'gpt-x', system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] },
      response: {
        content: 'hello: yes',
        toolCalls: [],
        usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
        finishReason: 'stop',
      },
    },
  ],
};

async function compile(root: string, env: Record<string, string | undefined>, registry = createRegistry()) {
  const loaded = await loadProject({ cwd: root, env });
  expect(loaded.diagnostics.map(formatDiagnostic)).toEqual([]);
  return compileProject(loaded, { env, registry });
}

describe('cassettes', () => {
  it('round-trips through YAML and plays back from offline/replay', async () => {
    const root = await project({
      'agents/a.yaml': [
        'kind: model',
        'name: replayed',
        'provider: offline',
        'model: replay',
        'cassette: ../cassettes/c.yaml',
        '---',
        'kind: agent',
        'name: a',
        'model: replayed',
        'instruction: Be brief.',
      ].join('\n'),
    });
    await writeCassette(join(root, 'cassettes/c.yaml'), CASSETTE);
    expect(await readCassette(join(root, 'cassettes/c.yaml'))).toEqual(CASSETTE);
    const { runtime, diagnostics } = await compile(root, {});
    expect(diagnostics).toEqual([]);
    const result = await runtime!.agents.get('a')!.run('hi').result;
    expect(result.text).toBe('hello: yes');
    await runtime!.dispose();
  });

  it('a missing cassette is an error at the cassette field, found by validate as by compile', async () => {
    const root = await project({
      'agents/a.yaml':
        'kind: model\nname: r\nprovider: offline\nmodel: replay\ncassette: ./none.yaml\n---\nkind: agent\nname: a\nmodel: r\n',
    });
    const missing = expect.stringMatching(
      /^agents\/a\.yaml:5:11: error: cassette agents\/none\.yaml does not exist/,
    );
    const loaded = await loadProject({ cwd: root, env: {} });
    expect(loaded.diagnostics.map(formatDiagnostic)).toEqual([missing]);
    const { diagnostics } = await compileProject(loaded, { env: {}, registry: createRegistry() });
    expect(diagnostics.map(formatDiagnostic)).toContainEqual(missing);
  });

  it('a network model with a cassette replays it when its key is unset, and calls its provider when set', async () => {
    const root = await project({
      'agents/a.yaml': [
        'kind: model',
        'name: live',
        'provider: acme',
        'model: gpt-x',
        'api_key: ${ACME_KEY:-}',
        'cassette: ../cassettes/c.yaml',
        '---',
        'kind: agent',
        'name: a',
        'model: live',
        'instruction: Be brief.',
      ].join('\n'),
    });
    await writeCassette(join(root, 'cassettes/c.yaml'), CASSETTE);
    const specs: unknown[] = [];
    const registry = createRegistry().registerProvider('acme', (spec): ModelProvider => {
      specs.push(spec);
      return {
        name: 'acme',
        chat: async () => CASSETTE.interactions[0].response,
        async *stream() {
          yield { type: 'done', response: { ...CASSETTE.interactions[0].response, content: 'live' } };
        },
      };
    });
    const offline = await compile(root, {}, registry);
    expect(offline.diagnostics.map(formatDiagnostic)).toEqual([
      'agents/a.yaml:6:11: warning: model `live` has no API key (ACME_KEY is not set); replaying its cassette cassettes/c.yaml instead [replay-fallback]',
    ]);
    expect((await offline.runtime!.agents.get('a')!.run('hi').result).text).toBe('hello: yes');
    expect(specs).toEqual([]);

    const online = await compile(root, { ACME_KEY: 'k-123456' }, registry);
    expect(online.diagnostics).toEqual([]);
    expect((await online.runtime!.agents.get('a')!.run('hi').result).text).toBe('live');
    // The provider learns which variable the key came from, to name it when the key is refused or missing.
    expect(specs).toEqual([expect.objectContaining({ apiKey: 'k-123456', apiKeyEnv: 'ACME_KEY' })]);
  });

  it('an alias bomb edited into a cassette is refused naming the cassette, not in yaml’s words alone', async () => {
    const bomb = ['version: 1', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 6; i++)
      bomb.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const root = await project({ 'cassettes/c.yaml': `${bomb.join('\n')}\ninteractions: []\n` });
    await expect(readCassette(join(root, 'cassettes/c.yaml'), 'cassettes/c.yaml')).rejects.toThrow(
      'cassettes/c.yaml: not valid YAML: too many aliases expanded (more than 100); refusing a possible alias bomb',
    );
  });

  it('the written file says what it is and holds no stray aliases', async () => {
    const root = await project({});
    const shared = { type: 'object' };
    const cassette = emptyCassette();
    cassette.interactions.push({
      ...CASSETTE.interactions[0],
      request: {
        ...CASSETTE.interactions[0].request,
        tools: [
          { name: 't', description: 'd', parameters: shared },
          { name: 'u', description: 'd', parameters: shared },
        ],
      },
    });
    await writeCassette(join(root, 'deep/c.yaml'), cassette);
    const text = await readFile(join(root, 'deep/c.yaml'), 'utf8');
    expect(text.startsWith('# Recorded by `agentctl run --record`')).toBe(true);
    expect(text).not.toMatch(/[&*]a1/);
    expect(await readCassette(join(root, 'deep/c.yaml'))).toEqual(cassette);
  });
});
