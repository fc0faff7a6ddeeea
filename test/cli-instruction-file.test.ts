import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

describe('templates in an instruction_file', () => {
  it('are checked as inline ones are (unknown paths, unset state keys), at their line and column in the file', async () => {
    const dir = await tempProject({
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction_file: prompts/a.md\n',
      'agents/prompts/a.md':
        'You are the desk.\nAnswer {{ input }} for {{ user.name }} on {{ date }}.\nKnown: {{ state.plan }}\n',
    });
    const check = await agentctl(['validate'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toBe(
      [
        'agents/prompts/a.md:2:24: warning: unknown template `{{ user.name }}` renders empty; use {{ input }}, {{ state.KEY }} (scoped: {{ state.user:KEY }}, {{ state.app:KEY }}), {{ agent.name }} or {{ date }} [instruction-template]',
        'agents/prompts/a.md:3:8: warning: `{{ state.plan }}` renders empty: no agent has `output_key: plan` and no module tool sets it [unset-state-key]',
        '0 errors, 2 warnings',
        '',
      ].join('\n'),
    );
  });

  it('a template left unclosed is a warning at its {{, inline and in a file; the run sends it as written', async () => {
    const dir = await tempProject({
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ninstruction: "Help with {{ input } today."\n---\nkind: agent\nname: b\nmodel: offline/echo\ninstruction_file: b.md\noutput_key: company\n',
      'agents/b.md': 'You are {{ agent.name }},\nthe desk of {{ state.company }.\n',
    });
    const [check, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['run', 'a', 'hi', '--json'], { cwd: dir }),
    ]);
    const unclosed = (written: string) =>
      `\`${written}\` opens a template that no \`}}\` closes, so the model gets it as written; close it with \`}}\` (such as {{ input }}, {{ state.KEY }}) [instruction-template]`;
    expect(check.stdout).toBe(
      [
        `agents/a.yaml:4:14: warning: ${unclosed('{{ input } today.')}`,
        `agents/b.md:2:13: warning: ${unclosed('{{ state.company }.')}`,
        '0 errors, 2 warnings',
        '',
      ].join('\n'),
    );
    expect(check.code).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(unclosed('{{ input } today.'));
  });
});
