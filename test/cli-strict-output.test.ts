import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiText } from '../packages/provider-openai/test/support/openai-wire.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, startFakeServer } from './support/fake-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

const model = (url: string) => `kind: model
name: strict
provider: openai
model: gpt-4.1-mini
base_url: ${url}
options: { strict_output: true }
`;

// Strict mode's subset: every property required, additionalProperties false, no uniqueItems.
const LOOSE = `kind: agent
name: loose
model: strict
output_schema:
  type: object
  properties:
    queue: { enum: [billing, tech] }
    note: { type: string }
    tags: { type: array, uniqueItems: true, items: { type: string } }
  required: [queue]
`;

const TIGHT = `kind: agent
name: tight
output_schema:
  type: object
  properties:
    queue: { enum: [billing, tech] }
    note: { type: [string, "null"] }
  required: [queue, note]
  additionalProperties: false
`;

describe('an output_schema on an OpenAI model with strict_output', () => {
  it('validate reports what strict mode refuses at the line of the schema', async () => {
    const dir = await tempProject({ 'agents/strict.yaml': `${model(server.url)}---\n${LOOSE}` });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(1);
    const prefix = 'error: output_schema for model `strict`: strict structured output (strict_output: true)';
    expect(check.stdout.split('\n').filter((line) => line.includes('[output-schema-provider]'))).toEqual([
      `agents/strict.yaml:12:3: ${prefix} needs \`additionalProperties: false\` on every object [output-schema-provider]`,
      `agents/strict.yaml:15:5: ${prefix} needs every property in \`required\`; \`note\` is not (write an optional one as nullable: \`type: [string, "null"]\`) [output-schema-provider]`,
      `agents/strict.yaml:16:5: ${prefix} needs every property in \`required\`; \`tags\` is not (write an optional one as nullable: \`type: [string, "null"]\`) [output-schema-provider]`,
      `agents/strict.yaml:16:26: ${prefix} does not support \`uniqueItems\` [output-schema-provider]`,
    ]);
  });

  it('run refuses it before a session or a request, also when --model brings the strict model', async () => {
    const loose = LOOSE.replace('name: loose\nmodel: strict\n', 'name: loose\n');
    const dir = await tempProject({ 'agents/strict.yaml': `${model(server.url)}---\n${loose}---\n${TIGHT}` });
    expect((await agentctl(['validate'], { cwd: dir })).code).toBe(0);
    const before = server.requests.length;
    const run = await agentctl(['run', 'loose', 'hi', '--model', 'strict'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'agents/strict.yaml:11:3: error: output_schema for model `strict`: strict structured output (strict_output: true) needs `additionalProperties: false` on every object [output-schema-provider]',
    );
    expect(server.requests.length).toBe(before);
    expect(await readdir(join(dir, '.agentctl/sessions')).catch(() => [])).toEqual([]);

    // A schema inside the subset runs, sent with strict: true.
    server.reply({ sse: openaiText('{"queue":"tech","note":null}') });
    const ok = await agentctl(['run', 'tight', 'hi', '--model', 'strict'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(server.requests.at(-1)?.body.response_format.json_schema.strict).toBe(true);
  });
});
