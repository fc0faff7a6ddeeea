import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempProject } from './support/cli.js';
import { parseYaml, schemaValidator, type Validate } from './support/schema-tools.js';

afterAll(removeTempDirs);

// Checks validate makes by a rule, in its own words, which the published schema makes too so that
// an editor marks the same mistakes: each bad document is refused by the schema, by validate at
// file:line:col, and by the command that would use it (run for an agent's tool, worker for a
// schedule); each good one passes the schema.

const PROJECT = 'kind: project\nname: p\n';
const AGENT = 'kind: agent\nname: a\nmodel: offline/echo\n';

let editor: Validate;
beforeAll(async () => {
  editor = schemaValidator(JSON.parse((await agentctl(['schema'])).stdout));
});

const schedule = (fields: string) => `kind: schedule\nname: s\nagent: a\ninput: hi\n${fields}`;
const tool = (fields: string) => `kind: tool\nname: t\n${fields}`;

interface Case {
  label: string;
  text: string;
  /** What validate says, after `agents/x.yaml:`. */
  says: string;
}

const SCHEDULES: Case[] = [
  {
    label: 'a field forgotten',
    text: schedule('cron: "0 8 * *"\n'),
    says: '5:7: error: invalid cron pattern "0 8 * *": it has 4 fields',
  },
  {
    label: 'a minute out of range',
    text: schedule('cron: "61 * * * *"\n'),
    says: '5:7: error: invalid cron pattern "61 * * * *": Constraint error, got value 61 expected range 0-59',
  },
  {
    label: 'words',
    text: schedule('cron: every day at 8\n'),
    says: '5:7: error: invalid cron pattern "every day at 8"',
  },
  {
    label: 'seven fields',
    text: schedule('cron: "0 0 8 * * 1 2026"\n'),
    says: '5:7: error: invalid cron pattern "0 0 8 * * 1 2026": Invalid cron expression, too many fields',
  },
  {
    label: 'an offset for a zone',
    text: schedule('cron: "0 8 * * *"\ntimezone: "+01:00"\n'),
    says: '6:11: error: unknown time zone "+01:00"',
  },
  {
    label: 'a zone with a space',
    text: schedule('cron: "0 8 * * *"\ntimezone: Europe Paris\n'),
    says: '6:11: error: unknown time zone "Europe Paris"',
  },
  {
    label: 'a reserved session id',
    text: schedule('cron: "0 8 * * *"\nsession: Index\n'),
    says: '6:10: error: invalid session id "Index": the name is reserved',
  },
  {
    label: 'a session id with ..',
    text: schedule('cron: "0 8 * * *"\nsession: a..b\n'),
    says: '6:10: error: invalid session id "a..b": it contains ".."',
  },
  {
    label: 'a session id ending .jsonl',
    text: schedule('cron: "0 8 * * *"\nsession: digest.JSONL\n'),
    says: '6:10: error: invalid session id "digest.JSONL": the name is reserved',
  },
  {
    label: 'a session id with a slash',
    text: schedule('cron: "0 8 * * *"\nsession: team/digest\n'),
    says: '6:10: error: invalid session id "team/digest": it has a character outside the alphabet',
  },
  {
    label: 'a session id too long',
    text: schedule(`cron: "0 8 * * *"\nsession: ${'a'.repeat(129)}\n`),
    says: '6:10: error: invalid session id',
  },
];

const TOOLS: Case[] = [
  {
    label: 'parameters of a type JSON Schema has not',
    text: tool('parameters: { type: objekt }\ncommand: { argv: [echo] }\n'),
    says: '3:13: error: parameters is not a valid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values',
  },
  {
    label: 'parameters with required not a list',
    text: tool('parameters: { type: object, required: name }\ncommand: { argv: [echo] }\n'),
    says: '3:13: error: parameters is not a valid JSON Schema: schema is invalid: data/required must be array',
  },
  {
    label: 'a user and password in a url',
    text: tool('http: { url: "https://bob:hunter2@example.com/x" }\n'),
    says: '3:14: error: tool kind http: url has a user name or password in it',
  },
  {
    label: 'a user in a url given by an argument',
    text: tool(
      'parameters: { type: object, properties: { who: { type: string } } }\nhttp: { url: "https://{{ args.who }}@example.com/x" }\n',
    ),
    says: '4:14: error: tool kind http: url has a user name or password in it',
  },
  {
    label: 'a user before a ${VAR} host',
    text: tool('http: { url: "http://admin@${HOST}/x", allowed_hosts: [example.com] }\n'),
    says: '3:14: error: tool kind http: url',
  },
  {
    label: 'a host an argument writes, with no allowed_hosts',
    text: tool(
      'parameters: { type: object, properties: { h: { type: string } } }\nhttp: { url: "https://{{ args.h }}.example.com/x" }\n',
    ),
    says: "4:14: error: tool kind http: the url's host comes from an argument; list the hosts it may reach in `allowed_hosts`",
  },
  {
    label: 'a url an argument writes whole, with no allowed_hosts',
    text: tool(
      'parameters: { type: object, properties: { u: { type: string } } }\nhttp: { url: "{{ args.u }}" }\n',
    ),
    says: "4:14: error: tool kind http: the url's host comes from an argument",
  },
];

describe('the schema refuses what validate refuses by a rule, and run or worker refuses it too', () => {
  // Each case in a file of its own, under a name of its own, so one process checks them all.
  const files = (cases: Case[], name: string) =>
    Object.fromEntries(
      cases.map((c, i) => [`agents/x${i}.yaml`, c.text.replace(`name: ${name}\n`, `name: ${name}${i}\n`)]),
    );

  it('a schedule: its cron pattern, time zone and session id', async () => {
    for (const c of SCHEDULES) expect(editor(parseYaml(c.text)), `schema: ${c.label}`).toBe(false);
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': AGENT,
      ...files(SCHEDULES, 's'),
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    // The worker registers every schedule, and refuses before it connects to anything.
    const worker = await agentctl(['worker'], { cwd: dir });
    expect(worker.code).toBe(1);
    SCHEDULES.forEach((c, i) => {
      expect(validate.stdout, `validate: ${c.label}`).toContain(`agents/x${i}.yaml:${c.says}`);
      expect(worker.stderr, `worker: ${c.label}`).toContain(`agents/x${i}.yaml:${c.says}`);
    });
  });

  it('a tool: its parameters as a JSON Schema, its url without a user or password', async () => {
    for (const c of TOOLS) expect(editor(parseYaml(c.text)), `schema: ${c.label}`).toBe(false);
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': `${AGENT}tools: [${TOOLS.map((_, i) => `t${i}`).join(', ')}]\n`,
      ...files(TOOLS, 't'),
    });
    const validate = await agentctl(['validate'], { cwd: dir, env: { HOST: 'example.com' } });
    expect(validate.code).toBe(1);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: { HOST: 'example.com' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing was run');
    TOOLS.forEach((c, i) => {
      expect(validate.stdout, `validate: ${c.label}`).toContain(`agents/x${i}.yaml:${c.says}`);
      expect(run.stderr, `run: ${c.label}`).toContain(`agents/x${i}.yaml:${c.says}`);
    });
  });

  it("a built-in's time zone (current_time)", async () => {
    const agent = `${AGENT}tools:\n  - builtin: current_time\n    timezone: "+01:00"\n`;
    expect(editor(parseYaml(agent))).toBe(false);
    expect(editor(parseYaml(agent.replace('"+01:00"', 'Europe/Oslo')))).toBe(true);
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': agent });
    const says = 'agents/a.yaml:6:15: error: built-in current_time: unknown time zone "+01:00"';
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(says);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(says);
  });

  it('an output schema (an agent, a test) that is not a JSON Schema', async () => {
    const agent = `${AGENT}output_schema: { type: object, properties: { n: { type: integr } } }\n`;
    const test =
      'kind: test\nname: t\nagent: a\nturns:\n  - user: hi\n    expect:\n      output: { schema: { minLength: -1 } }\n';
    expect(editor(parseYaml(agent))).toBe(false);
    expect(editor(parseYaml(test))).toBe(false);
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': agent, 'tests/t.yaml': test });
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain('agents/a.yaml:4:16: error: output_schema is not a valid JSON Schema');
    expect(validate.stdout).toContain('tests/t.yaml:7:25: error: not a valid JSON Schema');
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('agents/a.yaml:4:16: error: output_schema is not a valid JSON Schema');
  });

  it('agentctl.yaml: include, exclude and tests globs that leave the project', async () => {
    const project = `${PROJECT}include: ["agents/*.yaml", "../**/*.yaml"]\nexclude: ["/tmp/x"]\ntests: ["tests/{a,..}/*.yaml"]\n`;
    expect(editor(parseYaml(project))).toBe(false);
    for (const glob of ['"~/x"', '"C:/x"', '"a/../b"', `"${'a'.repeat(1025)}"`])
      expect(editor(parseYaml(`${PROJECT}include: [${glob}]\n`)), glob).toBe(false);
    for (const glob of ['"agents/**/*.yaml"', '"a..b/*.yaml"', '"{agents,more}/*.yaml"'])
      expect(editor(parseYaml(`${PROJECT}include: [${glob}]\n`)), glob).toBe(true);
    const dir = await tempProject({ 'agentctl.yaml': project, 'agents/a.yaml': AGENT });
    const says = [
      'agentctl.yaml:3:28: error: include pattern `../**/*.yaml` leaves the project folder (`..`)',
      'agentctl.yaml:4:11: error: exclude pattern `/tmp/x` is absolute; globs are relative to the project root',
      'agentctl.yaml:5:9: error: tests pattern `tests/{a,..}/*.yaml` leaves the project folder (`..`)',
    ];
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    for (const line of says) expect(validate.stdout).toContain(line);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    for (const line of says.slice(0, 2)) expect(run.stderr).toContain(line);
  });

  it('an agent named user, as a document or inline', async () => {
    const text = `${AGENT}sub_agents: [{ name: helper, model: offline/echo, sub_agents: [{ name: user, model: offline/echo }] }]\n`;
    expect(editor(parseYaml('kind: agent\nname: user\nmodel: offline/echo\n'))).toBe(false);
    expect(editor(parseYaml(text))).toBe(false);
    expect(editor(parseYaml(text.replace('name: user', 'name: users')))).toBe(true);
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, 'agents/a.yaml': text });
    const says =
      'agents/a.yaml:4:72: error: `user` is reserved for the human in a conversation; choose another agent name';
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(says);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(says);
  });

  it('what is right passes the schema and validate alike', async () => {
    const good = [
      schedule('cron: "0 8 * * 1-5"\ntimezone: Europe/Paris\nsession: digest-1\n'),
      schedule('cron: "@daily"\ntimezone: utc\n'),
      schedule('cron: "0 30 8 ? * MON-FRI"\ntimezone: America/Argentina/Buenos_Aires\n'),
      schedule('cron: "*/15 9-17 L * 5L"\ntimezone: Etc/GMT+5\n'),
      tool(
        'parameters: { type: object, properties: { q: { type: string } }, required: [q] }\nhttp: { url: "https://example.com/search?by=a@b" }\n',
      ),
      tool('http: { url: "${BASE_URL}/x", allowed_hosts: [example.com] }\n'),
      // A host with "arg" in its name is written, not an argument's.
      tool('http: { url: "https://cargo.example.com/x" }\n'),
      tool(
        'parameters: { type: object, properties: { u: { type: string } } }\nhttp: { url: "{{ args.u }}", allowed_hosts: [example.com] }\n',
      ),
    ];
    const files: Record<string, string> = { 'agentctl.yaml': PROJECT, 'agents/a.yaml': AGENT };
    good.forEach((text, i) => {
      expect(editor(parseYaml(text)), text).toBe(true);
      files[`agents/x${i}.yaml`] = text
        .replace('name: s\n', `name: s${i}\n`)
        .replace('name: t\n', `name: t${i}\n`);
    });
    const dir = await tempProject(files);
    const validate = await agentctl(['validate'], { cwd: dir, env: { BASE_URL: 'https://example.com' } });
    expect(validate.stdout + validate.stderr).toContain('no problems');
    expect(validate.code).toBe(0);
  });
});
