import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { anthropicText } from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const KEY = 'sk-logged-0123456789';

describe("a provider SDK's own logs", () => {
  it.each([
    ['openai', '/v1', openaiText('Plain answer.'), 'OPENAI_LOG'],
    ['anthropic', '', anthropicText('Plain answer.'), 'ANTHROPIC_LOG'],
  ] as const)(
    '%s: %s=debug writes its request dumps to stderr, leaving --json output whole',
    async (provider, base, wire, variable) => {
      const server = await startFakeServer([sse(wire)], base);
      servers.push(server);
      const dir = await tempProject({
        'agents/desk.yaml': `kind: model
name: m
provider: ${provider}
model: some-model
base_url: ${server.url}
api_key: ${KEY}
---
kind: agent
name: desk
model: m
`,
      });
      const result = await agentctl(['run', 'desk', 'hi', '--json'], {
        cwd: dir,
        env: { [variable]: 'debug' },
      });
      expect(result.code).toBe(0);
      // parseNdjson fails on any stdout line that is not an event.
      const end = parseNdjson(result.stdout).find((e) => e.type === 'run_end') as { output?: string };
      expect(end.output).toBe('Plain answer.');
      expect(result.stderr).toContain('sending request');
      expect(result.stdout + result.stderr).not.toContain(KEY);
    },
  );
});
