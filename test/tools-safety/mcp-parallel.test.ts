import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempDir } from '../support/cli.js';
import { EVERYTHING } from '../support/mcp-servers.js';

// Twelve parallel calls to one MCP toolset (more than Node's default of ten abort listeners on the
// run's signal): every call answers and nothing but our own session line reaches stderr.
afterAll(removeTempDirs);

it('12 parallel MCP calls print no warning on stderr', async () => {
  const dir = await tempDir('agentctl-mcp-parallel-');
  const calls = Array.from({ length: 12 }, (_, i) => ({
    id: `c${i}`,
    name: 'echo',
    arguments: { message: `m${i}` },
  }));
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'agentctl.yaml'), 'kind: project\nname: parallel\n');
  await writeFile(
    join(dir, 'agents/main.yaml'),
    `kind: agent
name: main
model: m
tools: [{ toolset: everything }]
---
kind: toolset
name: everything
mcp: { command: node, args: [${JSON.stringify(EVERYTHING)}, stdio] }
include: [echo]
---
kind: model
name: m
provider: offline
model: script
script:
  - tool_calls: ${JSON.stringify(calls)}
  - text: done
`,
  );
  const { code, stdout, stderr } = await agentctl(['run', 'main', 'go', '--json'], { cwd: dir });
  expect(code, stderr).toBe(0);
  const results = parseNdjson(stdout).filter((e) => e.type === 'tool_result');
  expect(results).toHaveLength(12);
  expect(results.every((r) => !r.isError)).toBe(true);
  expect(stderr.trim()).toMatch(/^session \S+$/);
});
