import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  anthropicStream,
  anthropicText,
} from '../packages/provider-anthropic/test/support/anthropic-wire.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { type FakeServer, sse, startFakeServer } from './support/fake-server.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(removeTempDirs);

const PROJECT = (url: string) => `kind: model
name: claude
provider: anthropic
model: claude-sonnet-4-5
base_url: ${url}
api_key: sk-ant-deprecated-0123
---
kind: agent
name: clock
model: claude
instruction: Tell the time.
tools:
  - builtin: current_time
`;

describe('a deprecated model', () => {
  it('validate warns at the model id, and run shows the SDK warning once for several requests', async () => {
    const server = await startFakeServer(
      [
        sse(anthropicStream([{ type: 'tool_use', id: 'toolu_1', name: 'current_time', input: {} }])),
        sse(anthropicText('It is noon.')),
      ],
      '',
    );
    servers.push(server);
    const dir = await tempProject({ 'agents/clock.yaml': PROJECT(server.url) }, 'agentctl-deprecated-');

    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout + check.stderr).toContain(
      'agents/clock.yaml:4:8: warning: anthropic model `claude-sonnet-4-5` is deprecated: reaches end of life on 2026-11-30; use claude-sonnet-4-6 [model-deprecated]',
    );

    const run = await agentctl(['run', 'clock', 'what time is it?'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(run.stdout).toContain('It is noon.');
    expect(run.stderr.split("The model 'claude-sonnet-4-5' is deprecated")).toHaveLength(2);
  });
});
