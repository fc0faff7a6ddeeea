import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readCassette } from '../packages/config/src/index.js';
import {
  geminiError,
  geminiStream,
  geminiText,
} from '../packages/provider-google/test/support/gemini-wire.js';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const KEY = 'AIza-cli-secret-0123456789';
const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

async function project(files: Record<string, string>): Promise<string> {
  files['agentctl.yaml'] ??= 'kind: project\nname: gemini\nexclude: [agents/cassettes/**]\n';
  return tempProject(files, 'agentctl-gemini-');
}

const MODEL = `kind: model
name: gem
provider: google
model: gemini-2.5-flash
base_url: \${GEMINI_BASE_URL:-https://generativelanguage.googleapis.com}
api_key: \${GEMINI_API_KEY:-}
cassette: ./cassettes/gem.yaml
reasoning: { effort: low }
options: { include_thoughts: false }
retry: { max_attempts: 2, initial_delay: 1ms }
---
kind: agent
name: poet
model: gem
instruction: Answer in one line.
output_schema: { type: object, properties: { line: { type: string } }, required: [line] }
`;

describe('provider: google through the CLI', () => {
  it('runs on the Gemini wire with the key from GEMINI_API_KEY, records, then replays with no key', async () => {
    const server = await startFakeServer(
      [
        geminiError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', '0.05s'),
        sse(
          geminiStream([{ text: '{"line":"Rain on the fjord."}' }], {
            usage: {
              promptTokenCount: 40,
              candidatesTokenCount: 8,
              thoughtsTokenCount: 30,
              cachedContentTokenCount: 16,
            },
          }),
        ),
      ],
      '',
    );
    servers.push(server);
    const dir = await project({ 'agents/poet.yaml': MODEL });
    const live = await agentctl(
      ['run', 'poet', 'a line about rain', '--json', '--record', 'agents/cassettes/gem.yaml'],
      {
        cwd: dir,
        env: { GEMINI_API_KEY: KEY, GEMINI_BASE_URL: server.url },
      },
    );
    expect(live.stderr).toContain('recorded 1 model call(s)');
    expect(live.code).toBe(0);
    expect(live.stdout + live.stderr).not.toContain(KEY);
    expect(server.requests).toHaveLength(2);
    const request = server.requests[1];
    expect(request.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    expect(request.body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: { required: ['line'] },
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: false },
    });
    const events = parseNdjson(live.stdout);
    // The answered call's usage is the last: the 429 before it may have one of its own (a failed call).
    expect(events.filter((e) => e.type === 'usage').at(-1)).toMatchObject({
      usage: { inputTokens: 24, outputTokens: 38, cacheReadTokens: 16 },
    });
    const liveEnd = events.find((e) => e.type === 'run_end') as { output?: string };
    expect(liveEnd.output).toBe('{"line":"Rain on the fjord."}');
    const cassette = await readCassette(join(dir, 'agents/cassettes/gem.yaml'));
    expect(cassette.interactions[0]).toMatchObject({
      provider: 'google',
      request: { model: 'gemini-2.5-flash' },
    });

    const replayed = await agentctl(['run', 'poet', 'a line about rain', '--json'], {
      cwd: dir,
      env: { GEMINI_API_KEY: undefined, GEMINI_BASE_URL: server.url },
    });
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).toMatch(
      /model `gem` has no API key \(GEMINI_API_KEY is not set\); replaying its cassette/,
    );
    expect(server.requests).toHaveLength(2);
    expect(
      (parseNdjson(replayed.stdout).find((e) => e.type === 'run_end') as { output?: string }).output,
    ).toBe(liveEnd.output);
  });

  it('fails a 401 without retrying, naming the model and the API message, never the key', async () => {
    const server = await startFakeServer([geminiError(401, 'UNAUTHENTICATED', 'API key not valid.')], '');
    servers.push(server);
    const dir = await project({ 'agents/poet.yaml': MODEL });
    const result = await agentctl(['run', 'poet', 'hi'], {
      cwd: dir,
      env: { GEMINI_API_KEY: KEY, GEMINI_BASE_URL: server.url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('google model gemini-2.5-flash failed with HTTP 401: API key not valid.');
    expect(result.stderr).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('stays on the Gemini API when the environment asks the SDK for Vertex AI, and keeps stdout clean', async () => {
    const server = await startFakeServer([sse(geminiText('{"line":"Still the Gemini API."}'))], '');
    servers.push(server);
    const dir = await project({ 'agents/poet.yaml': MODEL });
    const result = await agentctl(['run', 'poet', 'hi', '--json'], {
      cwd: dir,
      env: {
        GEMINI_API_KEY: KEY,
        GEMINI_BASE_URL: server.url,
        // What a Google Cloud shell often has set; the SDK reads them when not told otherwise.
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GOOGLE_CLOUD_PROJECT: 'some-project',
        GOOGLE_CLOUD_LOCATION: 'us-central1',
      },
    });
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ]);
    // parseNdjson fails on any line that is not an event (the SDK's notice went to stdout).
    const events = parseNdjson(result.stdout);
    expect((events.find((e) => e.type === 'run_end') as { output?: string }).output).toBe(
      '{"line":"Still the Gemini API."}',
    );
  });

  it('validate checks the options of a google model against its registered schema', async () => {
    const dir = await project({
      'agents/m.yaml': `kind: model
name: gem
provider: google
model: gemini-3-pro-preview
options: { thinking_levl: high }
`,
    });
    const result = await agentctl(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(
      /agents\/m\.yaml:5:12: error: .*thinking_levl.*thinking_level/,
    );
  });

  it('a network model in a fallback chain replays its cassette when its key is missing', async () => {
    const server = await startFakeServer([sse(geminiText('{"line":"live answer"}'))], '');
    servers.push(server);
    const dir = await project({ 'agents/poet.yaml': MODEL });
    const live = await agentctl(['run', 'poet', 'hi', '--record', 'agents/cassettes/gem.yaml'], {
      cwd: dir,
      env: { GEMINI_API_KEY: KEY, GEMINI_BASE_URL: server.url },
    });
    expect(live.code).toBe(0);
    await writeFile(
      join(dir, 'agents/backup.yaml'),
      'kind: model\nname: backup\nprovider: offline\nmodel: echo\n',
    );
    await writeFile(
      join(dir, 'agents/poet.yaml'),
      MODEL.replace(
        'reasoning: { effort: low }',
        'reasoning: { effort: low }\nfallback: [backup]\ncooldown: 30s',
      ),
    );
    const check = await agentctl(['validate'], { cwd: dir, env: { GEMINI_API_KEY: undefined } });
    expect(check.stdout + check.stderr).toContain('no problems');
    expect(check.code).toBe(0);
    const replayed = await agentctl(['run', 'poet', 'hi', '--json'], {
      cwd: dir,
      env: { GEMINI_API_KEY: undefined },
    });
    expect(parseNdjson(replayed.stdout).filter((e) => e.type === 'error')).toEqual([]);
    expect(replayed.code).toBe(0);
    expect(
      (parseNdjson(replayed.stdout).find((e) => e.type === 'run_end') as { output?: string }).output,
    ).toBe('{"line":"live answer"}');
    expect(server.requests).toHaveLength(1);
  });
});
