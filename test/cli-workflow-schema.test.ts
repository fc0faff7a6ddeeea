import { afterAll, describe, expect, it } from 'vitest';
import { LLM_ONLY, LOCAL_ONLY, LOOP_ONLY } from '../packages/config/src/rules/workflow-constraints.js';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { parseYaml, schemaValidator } from './support/schema-tools.js';

afterAll(removeTempDirs);

// A value of each field that is right for the type that has it, so a case is refused only for
// the field's being where its type has none.
const VALUES: Record<string, string> = {
  model: 'offline/echo',
  instruction: 'Be brief.',
  instruction_file: 'i.md',
  tools: '[{ builtin: think }]',
  output_schema: '{ type: object }',
  temperature: '0.5',
  top_p: '0.5',
  max_output_tokens: '100',
  sub_agents: '[SUB]',
  max_iterations: '3',
  middleware: '[retry]',
  memory: 'mem',
  output_key: 'out',
  approval: '{ tools: {} }',
  max_history: '10',
  disallow_transfer_to_parent: 'true',
  disallow_transfer_to_peers: 'true',
  limits: '{ max_tokens: 100 }',
  url: 'http://127.0.0.1:9/a2a',
  headers: '{ X-Team: a }',
};

const BASE: Record<string, Record<string, string>> = {
  llm: { model: VALUES.model },
  sequential: { type: 'sequential', sub_agents: VALUES.sub_agents },
  parallel: { type: 'parallel', sub_agents: VALUES.sub_agents },
  loop: { type: 'loop', sub_agents: VALUES.sub_agents },
  a2a: { type: 'a2a', url: VALUES.url },
};

interface Case {
  label: string;
  fields: Record<string, string>;
  refused: boolean;
}

function cases(): Case[] {
  const out: Case[] = [];
  const add = (type: string, extra: Record<string, string | undefined>, refused: boolean, label: string) => {
    const fields: Record<string, string> = { ...BASE[type] };
    for (const [key, value] of Object.entries(extra)) {
      if (value === undefined) delete fields[key];
      else fields[key] = value;
    }
    out.push({ label: `${type}: ${label}`, fields, refused });
  };
  for (const type of Object.keys(BASE)) add(type, {}, false, 'as it should be');
  for (const key of new Set([...LLM_ONLY, ...LOCAL_ONLY])) add('a2a', { [key]: VALUES[key] }, true, key);
  add('a2a', { url: undefined }, true, 'no url');
  add('a2a', { limits: VALUES.limits }, true, 'limits.max_tokens');
  add('a2a', { limits: '{ timeout: 5s }' }, false, 'limits.timeout');
  for (const type of ['llm', 'sequential', 'parallel', 'loop'])
    for (const key of ['url', 'headers']) add(type, { [key]: VALUES[key] }, true, key);
  add('llm', { max_iterations: '3' }, true, 'max_iterations');
  add(
    'llm',
    { instruction: VALUES.instruction, tools: VALUES.tools, middleware: VALUES.middleware },
    false,
    'its own',
  );
  for (const type of ['sequential', 'parallel', 'loop']) {
    for (const key of new Set([...LLM_ONLY, ...LOOP_ONLY])) add(type, { [key]: VALUES[key] }, true, key);
    add(type, { sub_agents: undefined }, true, 'no sub_agents');
    add(type, { sub_agents: '[]' }, true, 'sub_agents: []');
    add(type, { max_iterations: '3' }, type !== 'loop', 'max_iterations');
  }
  return out;
}

describe('what each type of agent has, in the published schema', () => {
  it('the schema editors use refuses each workflow constraint validate refuses, and only those', async () => {
    const all = cases();
    const files: Record<string, string> = {
      'agentctl.yaml': 'kind: project\nname: p\n',
      'agents/i.md': 'Be brief.\n',
      'agents/base.yaml': 'kind: memory\nname: mem\nbackend: memory\n',
    };
    const documents = all.map((c, i) => {
      const lines = [`kind: agent`, `name: case-${i}`];
      for (const [key, value] of Object.entries(c.fields))
        lines.push(`${key}: ${value.replace('SUB', `{ name: sub-${i}, model: offline/echo }`)}`);
      const text = `${lines.join('\n')}\n`;
      files[`agents/case-${i}.yaml`] = text;
      return text;
    });
    const dir = await tempProject(files);
    const editor = schemaValidator(JSON.parse((await agentctl(['schema'])).stdout));
    const validate = await agentctl(['validate', '--format', 'json'], { cwd: dir });
    const diagnostics = JSON.parse(validate.stdout).diagnostics as Array<{
      file: string;
      rule: string;
      severity: string;
      message: string;
    }>;
    // Nothing but the cases' constraints is wrong in the project.
    expect(diagnostics.filter((d) => d.severity === 'error' && d.rule !== 'workflow-constraints')).toEqual(
      [],
    );
    all.forEach((c, i) => {
      const errors = diagnostics.filter((d) => d.file === `agents/case-${i}.yaml` && d.severity === 'error');
      expect(errors.length > 0, `validate, ${c.label}`).toBe(c.refused);
      expect(editor(parseYaml(documents[i])), `schema, ${c.label}`).toBe(!c.refused);
    });
    // validate keeps its own words, not the schema's.
    expect(diagnostics.map((d) => d.message)).toContain('an a2a agent runs remotely and has no `memory`');
    expect(diagnostics.map((d) => d.message)).toContain(
      'a sequential agent has no `tools`; give it to one of its sub-agents',
    );
  });
});
