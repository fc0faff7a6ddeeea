import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const HINT = '`${VAR}` is not read in a name (only in `model` and `defaults.model`): write the name itself';

// Each variable is set to a name that exists, so only reading names as written refuses them.
const ENV = { MEM: 'mem', TOOL: 't', BI: 'think', AG: 'b', MW: 'retry', SUB: 'b', AGENT: 'a' };

const OTHERS = `---
kind: agent
name: b
model: offline/echo
---
kind: tool
name: t
description: says hi
command: { argv: [echo, hi] }
---
kind: memory
name: mem
backend: memory
`;

describe('a name written with ${VAR}', () => {
  it('is refused by validate and run at each field, saying names are read as written', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: p\n',
      'agents/a.yaml': `kind: agent
name: a
model: offline/echo
memory: \${MEM}
tools: ["\${TOOL}", { builtin: "\${BI}" }, { agent: "\${AG}" }]
middleware: ["\${MW}"]
${OTHERS}`,
      'tests/t.yaml': 'kind: test\nname: t\nagent: ${AGENT}\nturns:\n  - user: hi\n',
    });
    const expected = [
      `agents/a.yaml:4:9: error: memory \`\${MEM}\` is not defined; ${HINT}`,
      `agents/a.yaml:5:9: error: tool \`\${TOOL}\` is not defined; ${HINT}`,
      `agents/a.yaml:5:31: error: built-in tool \`\${BI}\` is not available; ${HINT}`,
      `agents/a.yaml:5:51: error: agent \`\${AG}\` is not defined; ${HINT}`,
      `agents/a.yaml:6:14: error: middleware \`\${MW}\` is not defined; ${HINT}`,
    ];
    const validate = await agentctl(['validate'], { cwd: dir, env: ENV });
    expect(validate.code).toBe(1);
    for (const line of expected) expect(validate.stdout).toContain(line);
    expect(validate.stdout).toContain(
      `tests/t.yaml:3:8: error: \`agent\` is not valid: "\${AGENT}"; expected a name`,
    );
    expect(validate.stdout).toContain(`(at most 64); ${HINT} [schema]`);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: ENV });
    expect(run.code).toBe(1);
    for (const line of expected) expect(run.stderr).toContain(line);
  });

  it('in sub_agents, which the schema refuses, says so too', async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: p\n',
      'agents/a.yaml': `kind: agent\nname: a\nmodel: offline/echo\nsub_agents: ["\${SUB}"]\n${OTHERS}`,
    });
    const validate = await agentctl(['validate'], { cwd: dir, env: ENV });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `agents/a.yaml:4:14: error: \`sub_agents\` is not valid: "\${SUB}"; expected a name other documents refer to: a letter, then letters, digits, '_' or '-' (at most 64); ${HINT}`,
    );
  });
});
