import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { freePort } from './support/free-port.js';

afterAll(removeTempDirs);

const AGENT = 'kind: agent\nname: a\nmodel: offline/echo\n';

function notExported(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('agentctl: traces were not exported'));
}

describe('the end of a traced command with a collector that cannot take its spans', () => {
  it('drops them at once when the collector refuses the connection, and says so once', async () => {
    const dir = await tempProject({ 'agents/a.yaml': AGENT });
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    for (const args of [
      ['run', 'a', 'hello', '--trace'],
      ['run', 'a', 'hello'],
    ]) {
      const result = await agentctl(args, {
        cwd: dir,
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: args.includes('--trace') ? `${endpoint}/v1/traces` : undefined,
          OTEL_EXPORTER_OTLP_ENDPOINT: args.includes('--trace') ? undefined : endpoint,
          OTEL_EXPORTER_OTLP_TIMEOUT: undefined,
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('hello');
      const said = notExported(result.stderr);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        new RegExp(
          `^agentctl: traces were not exported: \\d+ span\\(s\\) dropped: the collector at http://127\\.0\\.0\\.1:${port}/v1/traces refused the connection \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)$`,
        ),
      );
    }
  });

  it('stops waiting for a collector that accepts and never answers after the exit wait, and says so once', async () => {
    const dir = await tempProject({ 'agents/a.yaml': AGENT });
    const requests: IncomingMessage[] = [];
    const silent = createServer((req) => void requests.push(req));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const result = await agentctl(['run', 'a', 'hello'], {
        cwd: dir,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_TIMEOUT: undefined,
        },
      });
      expect(result.code, result.stderr).toBe(0);
      const said = notExported(result.stderr);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        new RegExp(
          `^agentctl: traces were not exported: \\d+ span\\(s\\) dropped: the collector at http://127\\.0\\.0\\.1:${port}/v1/traces did not answer within 2000 ms \\(OTEL_EXPORTER_OTLP_TIMEOUT sets how long the end of a command waits\\)$`,
        ),
      );
      expect(requests).toHaveLength(1);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
