import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const GATEWAY_KEY = 'gw-test-SECRET123';

// A gateway in front of the API refuses its own credential and quotes it, bare and as sent.
const refusal = (provider: string) => ({
  status: 401,
  json:
    provider === 'anthropic'
      ? {
          type: 'error',
          error: { type: 'authentication_error', message: `gateway key ${GATEWAY_KEY} refused` },
        }
      : { error: { code: 401, message: `gateway refused "Bearer ${GATEWAY_KEY}" (${GATEWAY_KEY})` } },
});

async function storedText(dir: string): Promise<string> {
  const sessions = join(dir, '.agentctl/sessions');
  const files = await readdir(sessions);
  return (await Promise.all(files.map((file) => readFile(join(sessions, file), 'utf8')))).join('');
}

describe('credentials sent besides the API key', () => {
  it.each([
    ['openai', '/v1', 'gpt-4.1-mini'],
    ['anthropic', '', 'claude-haiku-4-5'],
    ['google', '', 'gemini-2.5-flash'],
  ])(
    '%s: a credential header quoted back by the server never reaches the terminal, --json or the session',
    async (provider, base, model) => {
      const server = await startFakeServer([refusal(provider), refusal(provider)], base);
      servers.push(server);
      const dir = await tempProject({
        'agents/desk.yaml': `kind: model
name: gated
provider: ${provider}
model: ${model}
base_url: ${server.url}
api_key: sk-test-0123456789
options:
  headers: { Helicone-Auth: "Bearer \${GATEWAY_KEY}" }
---
kind: agent
name: desk
model: gated
instruction: Answer briefly.
`,
      });
      const env = { GATEWAY_KEY };
      const text = await agentctl(['run', 'desk', 'hi'], { cwd: dir, env });
      const json = await agentctl(['run', 'desk', 'hi', '--json'], { cwd: dir, env });
      expect(server.requests[0].headers['helicone-auth']).toBe(`Bearer ${GATEWAY_KEY}`);
      expect(text.code).toBe(1);
      expect(text.stderr).toContain('failed with HTTP 401');
      expect(text.stderr).toContain('[redacted]');
      expect(json.stdout).toContain('"code":"PROVIDER_ERROR"');
      for (const said of [text.stdout, text.stderr, json.stdout, json.stderr, await storedText(dir)])
        expect(said).not.toContain(GATEWAY_KEY);
    },
  );

  it('a base_url with a password is refused at its line before anything runs, the password never shown', async () => {
    const dir = await tempProject({
      'agents/desk.yaml': `kind: model
name: gated
provider: openai
model: gpt-4.1-mini
base_url: http://bob:\${GATEWAY_KEY}@127.0.0.1:9/v1
api_key: sk-test-0123456789
retry: { max_attempts: 1 }
---
kind: agent
name: desk
model: gated
`,
    });
    const run = await agentctl(['run', 'desk', 'hi'], { cwd: dir, env: { GATEWAY_KEY } });
    expect(run.code).toBe(1);
    // fetch refuses every request to such a URL: it is a mistake of the file, said at its line.
    expect(run.stderr).toContain(
      'agents/desk.yaml:5:11: error: `base_url` is not valid: "http://***@127.0.0.1:9/v1"; expected the API\'s base URL',
    );
    expect(run.stderr).toContain('nothing was run');
    expect(run.stderr).not.toContain(GATEWAY_KEY);
    expect(existsSync(join(dir, '.agentctl/sessions'))).toBe(false);
  });
});
