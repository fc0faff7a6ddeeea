import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, fixtureProject, removeTempDirs } from './support/cli.js';
import { startOtlpReceiver } from './support/otlp-receiver.js';

let project: string;

beforeAll(async () => {
  project = await fixtureProject('traced');
  await mkdir(join(project, 'tests'), { recursive: true });
  await writeFile(
    join(project, 'tests', 'triage.yaml'),
    [
      'kind: test',
      'name: triage-traced',
      'agent: triage',
      'turns:',
      '  - user: "where is my invoice?"',
      '',
    ].join('\n'),
  );
});
afterAll(removeTempDirs);

describe('agentctl test --trace', () => {
  it('exports the spans of the test conversations to the OTLP endpoint', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { code, stdout, stderr } = await agentctl(['test', 'triage-traced', '--trace'], {
        cwd: project,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACE_SECRET: 'x' },
      });
      expect(code, stdout + stderr).toBe(0);
      const names = receiver.spans.map((s) => s.name);
      expect(names).toContain('invocation triage');
      expect(names).toContain('invoke_agent triage');
      expect(names.some((n) => n.startsWith('chat '))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
