import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('a collector that never answers holds the end of the command for one export, not one per batch', async () => {
    // Accepts every export and never answers; the first batch waits for the exporter's timeout.
    const requests: IncomingMessage[] = [];
    const silent = createServer((req) => void requests.push(req));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const { code, stdout, stderr } = await agentctl(['test', 'triage-traced'], {
        cwd: project,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_TIMEOUT: '500',
          // Batches of 2 spans: the test's spans make several, which would wait their turn.
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
          TRACE_SECRET: 'x',
        },
      });
      expect(code, stdout + stderr).toBe(0);
      expect(stdout).toContain('✓ triage-traced');
      expect(stderr).toMatch(
        /agentctl: traces were not exported: .*\(and \d+ more span\(s\) were dropped without trying\)/,
      );
      expect(requests).toHaveLength(1);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
