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
const GATEWAY_KEY = 'gw-logged-SECRET123';

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
options:
  headers: { Helicone-Auth: "Bearer \${GATEWAY_KEY}" }
---
kind: agent
name: desk
model: m
`,
      });
      const result = await agentctl(['run', 'desk', 'hi', '--json'], {
        cwd: dir,
        env: { [variable]: 'debug', GATEWAY_KEY },
      });
      expect(result.code).toBe(0);
      // parseNdjson fails on any stdout line that is not an event.
      const end = parseNdjson(result.stdout).find((e) => e.type === 'run_end') as { output?: string };
      expect(end.output).toBe('Plain answer.');
      expect(result.stderr).toContain('sending request');
      // The SDK masks the headers it knows; a gateway's credential header is masked by agentctl.
      expect(server.requests[0].headers['helicone-auth']).toBe(`Bearer ${GATEWAY_KEY}`);
      expect(result.stderr.toLowerCase()).toContain('helicone-auth');
      expect(result.stdout + result.stderr).not.toContain(KEY);
      expect(result.stdout + result.stderr).not.toContain(GATEWAY_KEY);
    },
  );

  it('a stream line of 200 KB that is not JSON is not dumped whole on stderr', async () => {
    const garbage = `{${'x'.repeat(200_000)}`;
    const server = await startFakeServer([sse([{ data: garbage }])]);
    servers.push(server);
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: m
provider: openai
model: some-model
base_url: ${server.url}
api_key: ${KEY}
---
kind: agent
name: desk
model: m
`,
    });
    const result = await agentctl(['run', 'desk', 'hi'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the server sent data that is not JSON');
    expect(result.stderr).toContain('(200001 characters)');
    expect(result.stderr.length).toBeLessThan(30_000);
  });
});
