import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir } from './support/cli.js';
import { EVERYTHING } from './support/mcp-servers.js';

afterAll(removeTempDirs);

describe('agentctl validate --connect', () => {
  it('starts the MCP servers and reports include, exclude and approval names that match no real tool', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'agents'), { recursive: true });
    await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\n');
    await writeFile(
      join(dir, 'agents/a.yaml'),
      [
        'kind: toolset',
        'name: ev',
        `mcp: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio] }`,
        'include: [echo, ehco]',
        'prefix: ev_',
        'approval: { echo: always, nope: never }',
        '---',
        'kind: agent',
        'name: a',
        'model: offline/echo',
        'tools: [{ toolset: ev }]',
        'approval: { tools: { ev_echo: never, ev__echo: always } }',
        '',
      ].join('\n'),
    );
    const plain = await agentctl(['validate', '-C', dir]);
    expect(plain.code).toBe(0); // without --connect no server is started, so nothing is known
    // ... and it says so: the mcp toolset kind declares that it needs a server.
    expect(plain.stderr).toContain(
      'note: not reached offline: toolset ev (mcp); `agentctl validate --connect` starts and checks them',
    );
    const connected = await agentctl(['validate', '-C', dir, '--connect'], { timeoutMs: 60_000 });
    expect(connected.code).toBe(1);
    expect(connected.stderr).not.toContain('not reached offline');
    const lines = connected.stdout.split('\n').filter((l) => l.includes('[mcp-names]'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^agents\/a\.yaml:4:17: error: `ehco` matches no tool of server `ev` \(it has: .*echo/,
      ),
      expect.stringMatching(
        /^agents\/a\.yaml:6:27: error: approval key `nope` matches no tool of server `ev`/,
      ),
      expect.stringMatching(
        /^agents\/a\.yaml:12:38: error: approval key `ev__echo` matches no tool the server gives/,
      ),
    ]);
  }, 90_000);
});
