import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, removeTempDirs, tempDir, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const PROJECT = 'kind: project\nname: p\n';
const DURATION_FORMS =
  'expected a duration: milliseconds as a number, or a string such as "500ms", "30s", "2m", "1h".';

// The mistakes of a first hour with agentctl, each in a project of its own, and the one error
// line each must give: at the line where the mistake is, in the author's terms.
const MISTAKES: Array<{ name: string; files: Record<string, string | Uint8Array>; error: string }> = [
  {
    name: 'a key indented one space too far',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n instruction: hi\n' },
    error:
      'agents/a.yaml:4:2: error: `instruction` is indented more than `model` on line 3, which already has a value: line the keys up in one column, or remove the value after `model:` to nest under it [yaml-syntax]',
  },
  {
    name: 'a nested key out of line with the one above it',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nlimits:\n    max_iterations: 3\n  timeout: 2m\n',
    },
    error:
      'agents/a.yaml:6:3: error: line 6 starts at column 3, out of line with the lines above it (line 5 starts at column 5): keys of one mapping start in the same column [yaml-syntax]',
  },
  {
    name: 'a list item indented less than the one above it',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - builtin: current_time\n - builtin: current_time\n',
    },
    error:
      'agents/a.yaml:6:2: error: this list item starts at column 2, out of line with the lines above it (line 5 starts at column 3): items of one list start in the same column [yaml-syntax]',
  },
  {
    name: 'a value holding ": " without quotes',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: Note: be brief\n' },
    error:
      'agents/a.yaml:4:14: error: the value of `instruction` holds `: `, which YAML reads as a key: put the value in quotes (`instruction: "Note: be brief"`) [yaml-syntax]',
  },
  {
    name: 'no space after a colon',
    files: { 'agents/a.yaml': 'kind: agent\nname:a\nmodel: offline/echo\n' },
    error: 'agents/a.yaml:2:1: error: a key needs a space after its colon: `name: a` [yaml-syntax]',
  },
  {
    name: 'a list left open',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools: [lookup\n' },
    error:
      'agents/a.yaml:4:8: error: this `[` is not closed: end it with `]` (a value spread over several lines is indented more than its key) [yaml-syntax]',
  },
  {
    name: 'two documents without --- between them',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: m\n\nkind: model\nname: m\nprovider: offline\nmodel: echo\n',
    },
    error:
      'agents/a.yaml:5:1: error: a second `kind:` in one document (first on line 1): a new document starts here, so put `---` on the line above it [yaml-syntax]',
  },
  {
    name: 'a key given twice',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: hi\nmodel: offline/auto\n',
    },
    error:
      'agents/a.yaml:5:1: error: duplicate key: `model` is given twice in one mapping (first on line 3); keep one [yaml-syntax]',
  },
  {
    name: 'a quote left open',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: "Be brief.\n' },
    error:
      'agents/a.yaml:4:14: error: this " is not closed: end the value with " (inside it, write \\" for a ") [yaml-syntax]',
  },
  {
    name: 'a tab',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits:\n\tmax_iterations: 3\n' },
    error: 'agents/a.yaml:5:1: error: tabs are not allowed for indentation in YAML; use spaces [yaml-syntax]',
  },
  {
    name: 'a typo in kind',
    files: { 'agents/a.yaml': 'kind: agnet\nname: a\nmodel: offline/echo\n' },
    error:
      'agents/a.yaml:1:7: error: unknown kind "agnet"; expected one of project, agent, model, tool, toolset, middleware, memory, test, schedule; did you mean `agent`? [unknown-kind]',
  },
  {
    name: 'a typo in a field name',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstructoin: hi\n' },
    error:
      'agents/a.yaml:4:1: error: unknown key `instructoin` in agent; did you mean `instruction`? [unknown-key]',
  },
  {
    name: 'a typo in a required key (one error, not also "missing name")',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nsub_agents: [{ nme: helper, model: offline/echo }]\n',
    },
    error: 'agents/a.yaml:4:16: error: unknown key `nme` in `sub_agents`; did you mean `name`? [unknown-key]',
  },
  {
    name: 'a limit written on the agent instead of under limits',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntool_timeout: 5s\n' },
    error:
      'agents/a.yaml:4:1: error: unknown key `tool_timeout` in agent; did you mean `limits: { tool_timeout: ... }`? [unknown-key]',
  },
  {
    name: 'a wrong type',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits: { max_iterations: ten }\n',
    },
    error: 'agents/a.yaml:4:27: error: `max_iterations` must be an integer, not "ten" [schema]',
  },
  {
    name: 'one tool where a list is wanted',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools: current_time\n' },
    error:
      'agents/a.yaml:4:8: error: `tools` must be a list, not "current_time"; a list of one is written `[current_time]` [schema]',
  },
  {
    name: 'two middleware in one list item',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nmiddleware:\n  - retry: { max_attempts: 2 }\n    timeout: { model: 30s }\n',
    },
    error:
      'agents/a.yaml:5:5: error: `middleware` takes one key, not 2 (`retry`, `timeout`): give each its own list item (`- `) [schema]',
  },
  {
    name: 'a bad duration in an agent',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nlimits: { timeout: x }\n' },
    error: `agents/a.yaml:4:20: error: \`timeout\` is not valid; ${DURATION_FORMS.replace('a duration', 'a duration longer than zero')} [schema]`,
  },
  {
    name: 'a bad duration in a middleware option (a union schema)',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nmiddleware: [{ timeout: { model: soon } }]\n',
    },
    error: `agents/a.yaml:4:34: error: timeout: option \`model\` is not valid; ${DURATION_FORMS.replace('a duration', 'a duration longer than zero')} [plugin-options]`,
  },
  {
    name: 'a bad duration in a middleware document',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nmiddleware: [patient]\n---\nkind: middleware\nname: patient\nbuiltin: retry\noptions: { max_delay: "10 minutes" }\n',
    },
    error: `agents/a.yaml:9:23: error: retry: option \`max_delay\` is not valid; ${DURATION_FORMS} [plugin-options]`,
  },
  {
    name: "a provider's model id without the provider",
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: gpt-4.1-mini\n' },
    error:
      'agents/a.yaml:3:8: error: model `gpt-4.1-mini` is not defined; did you mean `openai/gpt-4.1-mini`? (use a model name, or "provider/model" such as "offline/echo") [unresolved-reference]',
  },
  {
    name: 'a sub-agent that does not exist',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nsub_agents: [biling]\n---\nkind: agent\nname: billing\nmodel: offline/echo\n',
    },
    error:
      'agents/a.yaml:4:14: error: agent `biling` is not defined; did you mean `billing`? [unresolved-reference]',
  },
  {
    name: 'a tool referenced that nothing defines',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools: [lookup]\n' },
    error:
      'agents/a.yaml:4:9: error: tool `lookup` is not defined: define it in a `kind: tool` document [unresolved-reference]',
  },
  {
    name: 'a tool referenced but not defined',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools: [lookup_ordr]\n---\nkind: tool\nname: lookup_order\ncommand: { argv: [date] }\n',
    },
    error:
      'agents/a.yaml:4:9: error: tool `lookup_ordr` is not defined; did you mean `lookup_order`? [unresolved-reference]',
  },
  {
    name: 'a sub-agent cycle',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nsub_agents: [b]\n---\nkind: agent\nname: b\nmodel: offline/echo\nsub_agents: [a]\n',
    },
    error: 'agents/a.yaml:9:14: error: agent cycle: a -> b -> a [agent-cycle]',
  },
  {
    name: 'one agent name in two files',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/b.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
    },
    error: 'agents/b.yaml:2:7: error: agent `a` is already defined at agents/a.yaml:2:7 [unique-names]',
  },
  {
    name: 'a built-in tool named bare, as a tool of the project is',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ntools: [current_time]\n' },
    error:
      'agents/a.yaml:4:9: error: tool `current_time` is not defined; did you mean the built-in tool `{ builtin: current_time }`? [unresolved-reference]',
  },
  {
    name: 'an instruction read from a file the way a guess would write it',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: { file: prompt.md }\n',
      'agents/prompt.md': 'Be brief.\n',
    },
    error:
      'agents/a.yaml:4:14: error: `instruction` must be a string, not a mapping; to read it from a file, write `instruction_file: prompt.md` [schema]',
  },
  {
    name: 'an agent listed bare among the tools',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools: [helper]\n---\nkind: agent\nname: helper\ndescription: helps\nmodel: offline/echo\n',
    },
    error:
      'agents/a.yaml:4:9: error: tool `helper` is not defined, but an agent is: call it as a tool with `{ agent: helper }`, or hand the conversation to it with `sub_agents: [helper]` [unresolved-reference]',
  },
  {
    name: 'a toolset listed bare among the tools',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools: [docs]\n---\nkind: toolset\nname: docs\nmcp: { command: node, args: [server.js] }\n',
      'server.js': '',
    },
    error:
      'agents/a.yaml:4:9: error: tool `docs` is not defined, but a toolset is: give the agent its tools with `{ toolset: docs }` [unresolved-reference]',
  },
  {
    name: 'a sub-agent written as a tool calls an agent',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nsub_agents:\n  - agent: helper\n---\nkind: agent\nname: helper\ndescription: helps\nmodel: offline/echo\n',
    },
    error:
      'agents/a.yaml:5:5: error: unknown key `agent` in `sub_agents`: a sub-agent is named bare (`sub_agents: [helper]`) or written inline with `name:`; `{ agent: ... }` is how `tools:` calls an agent [unknown-key]',
  },
  {
    name: 'a file saved as Latin-1',
    files: {
      'agents/a.yaml': Buffer.from(
        'kind: agent\nname: a\nmodel: offline/echo\ninstruction: caf\xe9\n',
        'latin1',
      ),
    },
    error:
      'agents/a.yaml:4:17: error: file is not UTF-8: byte 0xE9 is not valid UTF-8 (saved as Latin-1 or Windows-1252?); save it as UTF-8 [encoding]',
  },
  {
    name: 'a file saved as UTF-16',
    files: { 'agents/a.yaml': Buffer.from('\ufeffkind: agent\nname: a\nmodel: offline/echo\n', 'utf16le') },
    error:
      'agents/a.yaml:1:1: error: file is not UTF-8: it is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8 [encoding]',
  },
  {
    name: 'an instruction file saved as Windows-1252',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction_file: prompt.md\n',
      'agents/prompt.md': Buffer.from('You answer politely.\nSay \x93hello\x94 first.\n', 'latin1'),
    },
    error:
      'agents/a.yaml:4:19: error: instruction file `prompt.md` is not UTF-8 at line 2, column 5: byte 0x93 is not valid UTF-8 (saved as Latin-1 or Windows-1252?); save it as UTF-8 [file-path]',
  },
  {
    name: 'a document without its kind',
    files: { 'agents/a.yaml': 'name: a\nmodel: offline/echo\n' },
    error:
      'agents/a.yaml:1:1: error: document has no `kind`; expected one of project, agent, model, tool, toolset, middleware, memory, test, schedule: add one above `name:`, such as `kind: agent` [unknown-kind]',
  },
  {
    name: "a model written inline in agentctl.yaml's defaults",
    files: {
      'agentctl.yaml': 'kind: project\nname: p\ndefaults:\n  model: { provider: offline, model: echo }\n',
      'agents/a.yaml': 'kind: agent\nname: a\ninstruction: hi\n',
    },
    // One error at its line: not also an internal error of every rule that reads `defaults.model`.
    error: 'agentctl.yaml:4:10: error: `model` must be a string, not a mapping [schema]',
  },
  {
    name: "a list for agentctl.yaml's env_file, which names one file",
    files: {
      'agentctl.yaml': 'kind: project\nname: p\nenv_file: [.env]\n',
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
    },
    error: 'agentctl.yaml:3:11: error: `env_file` must be a string, not a list [schema]',
  },
  {
    name: 'a file that is a YAML list',
    files: { 'agents/a.yaml': '- kind: agent\n  name: a\n  model: offline/echo\n' },
    error:
      'agents/a.yaml:1:1: error: a document must be a mapping with a `kind` and a `name`, not a list: write each document without the leading `- `, and put `---` between them [schema]',
  },
  {
    name: 'an alias to an anchor of an earlier document of the file',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: b\nmodel: offline/echo\ninstruction: &rules Be brief.\n---\nkind: agent\nname: a\nmodel: offline/echo\ninstruction: *rules\n',
    },
    error:
      'agents/a.yaml:9:14: error: alias *rules names no anchor in its document: `&rules` on line 4 is in an earlier document, and an anchor holds only until the next `---`; repeat the value here [yaml-syntax]',
  },
  {
    name: "a command tool's argv written as one command line",
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ntools: [clock]\n---\nkind: tool\nname: clock\ndescription: The time\ncommand:\n  argv: date -u\n',
    },
    error:
      'agents/a.yaml:10:9: error: `argv` must be a list, not "date -u"; no shell splits it: write each word as its own element, `[date, -u]` [schema]',
  },
  {
    name: "an MCP server's args written as one line, a scoped package among them",
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ntools: [{ toolset: docs }]\n---\nkind: toolset\nname: docs\nmcp: { command: npx, args: -y @acme/docs-server . }\n',
    },
    error:
      'agents/a.yaml:8:28: error: `args` must be a list, not "-y @acme/docs-server ."; no shell splits it: write each word as its own element, `[-y, "@acme/docs-server", .]` [schema]',
  },
  {
    name: "a command tool's command written as a command line",
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/auto\ntools: [clock]\n---\nkind: tool\nname: clock\ndescription: The time\ncommand: date -u\n',
    },
    error:
      'agents/a.yaml:9:10: error: `command` must be a mapping, not "date -u"; write the program and its arguments as a list under `argv`: `command: { argv: [date, -u] }` [schema]',
  },
  {
    name: 'a list started on the line of its key',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: - be brief\n' },
    error:
      'agents/a.yaml:4:14: error: `- ` after `instruction:` on its line would start a list, which YAML does not allow there: quote the text (`instruction: "- be brief"`), or put each item on a line of its own below `instruction:`, indented, starting with `- ` [yaml-syntax]',
  },
  {
    name: 'a double quote inside a double-quoted value',
    files: {
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: "Say "hello" first."\n',
    },
    error:
      'agents/a.yaml:4:20: error: text after the closing " of a quoted value: a " inside the value is written `\\"` (or quote the whole value with `\'`, inside which `"` is plain) [yaml-syntax]',
  },
  {
    name: 'an apostrophe inside a single-quoted value',
    files: { 'agents/a.yaml': "kind: agent\nname: a\nmodel: offline/echo\ninstruction: 'It's fine.'\n" },
    error:
      "agents/a.yaml:4:18: error: text after the closing ' of a quoted value: a ' inside the value is written `''` [yaml-syntax]",
  },
  {
    name: 'a value starting with a character YAML reserves',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\ninstruction: @support answers\n' },
    error:
      'agents/a.yaml:4:14: error: a value cannot start with `@` unless it is quoted: write `instruction: "@support answers"` [yaml-syntax]',
  },
  {
    name: 'a local server named as the provider of an inline model',
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: ollama/llama3.2\n' },
    error:
      'agents/a.yaml:3:8: error: provider `ollama` is not available; Ollama speaks the OpenAI API: use, by its name, a `kind: model` with `provider: openai`, `model: llama3.2` and `base_url: http://127.0.0.1:11434/v1` (registered: offline, openai, anthropic, google) [unknown-provider]',
  },
  {
    name: 'a local server as the provider of a model document',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: local\n---\nkind: model\nname: local\nprovider: vllm\nmodel: qwen3\n',
    },
    error:
      'agents/a.yaml:7:11: error: provider `vllm` is not available; vLLM speaks the OpenAI API: write `provider: openai` with `base_url: http://127.0.0.1:8000/v1` (registered: offline, openai, anthropic, google) [unknown-provider]',
  },
  {
    name: "a model's provider written into the agent",
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nprovider: anthropic\nmodel: claude-sonnet-4-6\n' },
    error:
      'agents/a.yaml:3:1: error: unknown key `provider` in agent; `provider` is a setting of a `kind: model` document, which the agent names in `model:`; or name the model inline, with no document: `model: anthropic/claude-sonnet-4-6` [unknown-key]',
  },
  {
    name: "another framework's name for the instruction",
    files: { 'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nsystem_prompt: Be brief.\n' },
    error:
      'agents/a.yaml:4:1: error: unknown key `system_prompt` in agent; did you mean `instruction`? [unknown-key]',
  },
  {
    name: 'a key of another kind',
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: m\n---\nkind: model\nname: m\nprovider: offline\nmodel: echo\ninstruction: Be brief.\n',
    },
    error:
      'agents/a.yaml:9:1: error: unknown key `instruction` in model; `instruction` is a key of `kind: agent` documents [unknown-key]',
  },
  {
    name: "a tool declared inside the agent's tools",
    files: {
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - clock:\n      command: { argv: [date] }\n',
    },
    error:
      'agents/a.yaml:5:5: error: unknown key `clock` in `tools`; a tool is declared in a `kind: tool` document of its own (`name`, `description`, `parameters`, and `command`, `http` or `module`) and listed here by its name: `- clock` [unknown-key]',
  },
];

describe.concurrent('a first mistake: one error at its line, the same from validate and run', () => {
  it.each(MISTAKES)('$name', async ({ files, error }) => {
    const dir = await tempProject({ 'agentctl.yaml': PROJECT, ...files });
    const [validate, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['run', 'a', 'hi'], { cwd: dir }),
    ]);
    const errorLines = (text: string) => text.split('\n').filter((line) => / error: /.test(line));
    expect(errorLines(validate.stdout), validate.stderr).toEqual([error]);
    expect(validate.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([error]);
    expect(run.stderr).toContain('nothing was run');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
    for (const out of [validate.stdout, validate.stderr, run.stderr]) expect(out).not.toMatch(/^\s+at /m);
  });
});

describe.concurrent('a first command in the wrong place, or with the wrong name', () => {
  it('validate, dev and serve --watch in a folder with no project say so, with exit 2, as run does', async () => {
    const dir = await tempDir();
    const results = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['dev', 'a'], { cwd: dir }),
      agentctl(['dev', '--ui', '--port', '0'], { cwd: dir, timeoutMs: 15_000 }),
      agentctl(['serve', '--watch', '--port', '0'], { cwd: dir, timeoutMs: 15_000 }),
      agentctl(['run', 'a', 'hi'], { cwd: dir }),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe(
        `agentctl: no agentctl project in ${dir}: no agentctl.yaml here or in a parent folder, and no agents/**/*.yaml (create one with \`agentctl init\`, or point at one with -C DIR)\n`,
      );
      expect(result.stdout).toBe('');
    }
  });

  it("run from inside the agents/ of a project with no agentctl.yaml names the project's folder", async () => {
    const dir = await tempProject({ 'agents/team/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n' });
    const inside = join(dir, 'agents/team');
    const [run, pointed] = await Promise.all([
      agentctl(['run', 'a', 'hi'], { cwd: inside }),
      agentctl(['-C', '../..', 'run', 'a', 'hi'], { cwd: inside }),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `; this folder is in the agents/ of ${dir}, a project with no agentctl.yaml: run the command from ${dir}, or here with -C ../..\n`,
    );
    expect(pointed.code, pointed.stderr).toBe(0);
    expect(pointed.stdout).toBe('hi\n');
  });

  it('-C naming a file, or a folder with no project, is bad usage that says what -C wants', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
    });
    const [file, folder] = await Promise.all([
      agentctl(['-C', 'agents/a.yaml', 'validate'], { cwd: dir }),
      agentctl(['-C', 'agents', 'validate'], { cwd: dir }),
    ]);
    expect(file.code).toBe(2);
    expect(file.stderr).toBe(
      "agentctl: -C agents/a.yaml: not a folder; -C names the project's folder (the one with agentctl.yaml)\n",
    );
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(
      `agentctl: no agentctl project in ${dir}/agents: no agentctl.yaml there, and no agents/**/*.yaml (create one with \`agentctl init\`)\n`,
    );
  });

  it('run, tree and dev of a misspelt agent suggest the near name', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: assistant\nmodel: offline/echo\n---\nkind: agent\nname: billing\nmodel: offline/echo\n',
    });
    const results = await Promise.all([
      agentctl(['run', 'asistant', 'hi'], { cwd: dir }),
      agentctl(['tree', 'asistant'], { cwd: dir }),
      agentctl(['dev', 'asistant'], { cwd: dir }),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        'agentctl: no agent named "asistant"; did you mean `assistant`? Agents in this project: assistant, billing\n',
      );
    }
  });

  it('dev with no agent names the agents it could chat with, and the page', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: billing\nmodel: offline/echo\n---\nkind: agent\nname: assistant\nmodel: offline/echo\n',
    });
    const dev = await agentctl(['dev'], { cwd: dir });
    expect(dev.stderr).toBe(
      'agentctl: name the agent to chat with: agentctl dev <agent> (agents here: assistant, billing), or open the page: agentctl dev --ui\n',
    );
    expect(dev.code).toBe(2);
  });

  it('validate of a folder checks the files under it; a path that names nothing is bad usage', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/more/b.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/c.yaml': 'kind: agent\nname: c\nmodel: offline/echo\ncolour: red\n',
    });
    const [folder, file, typo] = await Promise.all([
      agentctl(['validate', 'agents/more/'], { cwd: dir }),
      agentctl(['validate', 'agents/a.yaml'], { cwd: dir }),
      agentctl(['validate', 'agents/nope.yaml'], { cwd: dir }),
    ]);
    expect(folder.stdout).toBe(
      'agents/more/b.yaml:2:7: error: agent `a` is already defined at agents/a.yaml:2:7 [unique-names]\n1 error, 0 warnings\n',
    );
    expect(folder.code).toBe(1);
    expect(file.stdout).toBe('✓ no problems\n');
    expect(file.code).toBe(0);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('agentctl: no such file or folder: agents/nope.yaml\n');
  });

  it('validate of a file the project does not read warns that run never reads it; of a folder with none of its files is bad usage', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'drafts/b.yaml': 'kind: agent\nname: b\nmodel: offline/echo\n',
    });
    const [file, strict, folder, run] = await Promise.all([
      agentctl(['validate', 'drafts/b.yaml'], { cwd: dir }),
      agentctl(['validate', '--strict', 'drafts/b.yaml'], { cwd: dir }),
      agentctl(['validate', 'drafts'], { cwd: dir }),
      agentctl(['run', 'b', 'hi'], { cwd: dir }),
    ]);
    expect(file.stdout).toBe(
      'drafts/b.yaml:1:1: warning: drafts/b.yaml is not a file of the project (it reads agents/**/*.yaml, tests/**/*.yaml): `run` and `test` never read it; add it to `include` in agentctl.yaml [project-file]\n0 errors, 1 warning\n',
    );
    expect(file.code).toBe(0);
    expect(strict.code).toBe(1);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(
      "agentctl: drafts holds none of the project's files; nothing there to validate\n",
    );
    // What validate warned about: run does not know the agent.
    expect(run.code).toBe(2);
  });

  it("a memory server's url that is empty with this environment is a warning at validate, as run refuses it", async () => {
    const dir = await tempProject({
      'agentctl.yaml': 'kind: project\nname: p\ndefaults: { memory: shared }\n',
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\n---\nkind: memory\nname: shared\nbackend: postgres\nurl: ${DATABASE_URL}\n',
    });
    const unset = { DATABASE_URL: undefined };
    const [validate, strict, set, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir, env: unset }),
      agentctl(['validate', '--strict'], { cwd: dir, env: unset }),
      agentctl(['validate'], { cwd: dir, env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db' } }),
      agentctl(['run', 'a', 'hi'], { cwd: dir, env: unset }),
    ]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe(
      "agents/a.yaml:8:6: warning: memory `shared`'s url `${DATABASE_URL}` is empty with this environment; set the variable or give a non-empty default (run, serve and worker refuse it empty) [env-empty]\n0 errors, 1 warning\n",
    );
    expect(strict.code).toBe(1);
    expect(set.code, set.stdout).toBe(0);
    expect(set.stdout).toBe('✓ no problems\n');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('needs a connection URL');
  });

  it("another tool's YAML among the agents is told where it belongs; run of an agent that needs none of it goes on", async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
      'agents/compose.yaml': 'services:\n  web:\n    image: nginx\n',
    });
    const said =
      "agents/compose.yaml:1:1: error: document has no `kind`; expected one of project, agent, model, tool, toolset, middleware, memory, test, schedule: a YAML file that is not agentctl's belongs outside the included folders, or under `exclude:` in agentctl.yaml [unknown-kind]";
    const validate = await agentctl(['validate'], { cwd: dir });
    expect(validate.stdout).toContain(`${said}\n`);
    expect(validate.code).toBe(1);
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir });
    expect(run.stderr).toContain(
      `${said.replace(': error:', ': warning:').replace(' [unknown-kind]', ' (not used by `a`, so not blocking it) [unknown-kind]')}\n`,
    );
    expect(run.stdout).toBe('hi\n');
    expect(run.code).toBe(0);
  });

  it('a misspelt kind on a sub-agent is an error of run as of validate, not "not used", beside the reference it breaks', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\nsub_agents: [b]\n',
      'agents/b.yaml': 'kind: agnet\nname: b\nmodel: offline/echo\n',
    });
    const errors = [
      // Not `did you mean \`a\``: an agent is never its own sub-agent.
      'agents/a.yaml:4:14: error: agent `b` is not defined: define it in a `kind: agent` document [unresolved-reference]',
      'agents/b.yaml:1:7: error: unknown kind "agnet"; expected one of project, agent, model, tool, toolset, middleware, memory, test, schedule; did you mean `agent`? [unknown-kind]',
    ];
    const [validate, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['run', 'a', 'hi'], { cwd: dir }),
    ]);
    expect(validate.stdout).toBe(`${errors.join('\n')}\n2 errors, 0 warnings\n`);
    expect(validate.code).toBe(1);
    expect(run.stderr).toBe(`${errors.join('\n')}\nagentctl: 2 error(s) in the project; nothing was run\n`);
    expect(run.code).toBe(1);
  });

  it('a --- at the top or the end of a file, or two in a row, is no document: validate passes as run does', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        '---\nkind: agent\nname: a\nmodel: offline/echo\n---\n---\n# b comes later\nkind: agent\nname: b\nmodel: offline/echo\n---\n',
      'agents/c.yaml': 'kind: agent\nname: c\nmodel: offline/echo\n---\n# more agents to come\n',
    });
    const validate = await agentctl(['validate', '--strict'], { cwd: dir });
    expect(validate.stdout).toBe('✓ no problems\n');
    expect(validate.code).toBe(0);
    const run = await agentctl(['run', 'b', 'hi'], { cwd: dir });
    expect(run.stderr).not.toContain('warning');
    expect(run.code).toBe(0);
    // A value written out (`~`) is a document, and not one agentctl reads.
    await writeFile(join(dir, 'agents/c.yaml'), 'kind: agent\nname: c\nmodel: offline/echo\n---\n~\n');
    const tilde = await agentctl(['validate'], { cwd: dir });
    expect(tilde.stdout).toContain(
      'agents/c.yaml:5:1: error: a document must be a mapping with a `kind` and a `name`, not an empty value [schema]',
    );
  });

  it('an agent in a .yml file is told about, not skipped in silence', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: m\n---\nkind: model\nname: m\nprovider: offline\nmodel: script\nscript: ./turns.yml\n',
      'agents/turns.yml': '- text: hello\n',
      'agents/bot.yml': 'kind: agent\nname: bot\nmodel: offline/echo\n',
    });
    const warning =
      'agents/bot.yml:1:1: warning: a .yml file is not read: the project reads agents/**/*.yaml; rename it to agents/bot.yaml, or add `agents/**/*.yml` to `include` in agentctl.yaml [project-file]\n';
    const [validate, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['run', 'bot', 'hi'], { cwd: dir }),
    ]);
    expect(validate.stdout).toBe(`${warning}0 errors, 1 warning\n`);
    expect(validate.code).toBe(0);
    expect(run.stderr).toBe(`${warning}agentctl: no agent named "bot". Agents in this project: a\n`);
    expect(run.code).toBe(2);
  });

  it('--model naming an OpenAI-compatible server as its provider says how to reach it', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
    });
    const result = await agentctl(['run', 'a', 'hi', '--model', 'ollama/llama3'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agentctl: --model ollama/llama3: provider `ollama` is not available; Ollama speaks the OpenAI API: use, by its name, a `kind: model` with `provider: openai`, `model: llama3` and `base_url: http://127.0.0.1:11434/v1` (registered: offline, openai, anthropic, google)\n',
    );
  });

  it("--model with a provider's model id alone suggests provider/model", async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/echo\n',
    });
    const result = await agentctl(['run', 'a', 'hi', '--model', 'claude-sonnet-4-6'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agentctl: --model claude-sonnet-4-6: no model of that name; did you mean `anthropic/claude-sonnet-4-6`? (models: none; or give provider/model such as offline/echo)\n',
    );
  });

  it('schema of a misspelt kind suggests the kind', async () => {
    const result = await agentctl(['schema', 'agnet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agentctl: unknown kind "agnet"; did you mean `agent`? kinds: project, agent, model, tool, toolset, middleware, memory, test, schedule\n',
    );
  });

  it('schema --write to a folder, or under a file, is bad usage naming what is in the way', async () => {
    const dir = await tempProject({ 'notes.txt': 'a file\n', 'out/.keep': '' });
    const [folder, underFile, fine] = await Promise.all([
      agentctl(['schema', '--write', 'out'], { cwd: dir }),
      agentctl(['schema', 'agent', '--write', 'notes.txt/agent.json'], { cwd: dir }),
      agentctl(['schema', '--write', 'made/here/agentctl.json'], { cwd: dir }),
    ]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(
      `agentctl: --write out: ${join(dir, 'out')} is a folder; give the path of a file\n`,
    );
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toBe(
      `agentctl: --write notes.txt/agent.json: ${join(dir, 'notes.txt')} is not a folder; give the path of a file\n`,
    );
    expect(fine.code, fine.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'made/here/agentctl.json'), 'utf8')).$id).toBe(
      'https://agentctl.dev/schemas/agentctl.schema.json',
    );
  });

  it('a missing API key names the variable and how to run offline; validate, needing no secret, passes', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: openai/gpt-4.1-mini\n',
    });
    const env = { OPENAI_API_KEY: undefined };
    const [validate, run, offline] = await Promise.all([
      agentctl(['validate'], { cwd: dir, env }),
      agentctl(['run', 'a', 'hi'], { cwd: dir, env }),
      agentctl(['run', 'a', 'hi', '--model', 'offline/echo'], { cwd: dir, env }),
    ]);
    expect(validate.code).toBe(0);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "agents/a.yaml:3:8: error: model `openai/gpt-4.1-mini` has no API key: set OPENAI_API_KEY in the environment or the project's .env, or `api_key:` in a `kind: model`; or try the agent offline with no key: `--model offline/echo` [api-key]",
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toBe('hi\n');
  });

  it('a .env line written as YAML is told about, without its value, by validate and run', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: openai/gpt-4.1-mini\n',
      '.env': '# keys\nOPENAI_API_KEY: sk-not-a-real-key\n',
    });
    const env = { OPENAI_API_KEY: undefined };
    const [validate, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir, env }),
      agentctl(['run', 'a', 'hi'], { cwd: dir, env }),
    ]);
    const warning =
      '.env:2:1: warning: not a `NAME=value` line, so it sets nothing; write `OPENAI_API_KEY=value` [env-file]\n';
    expect(validate.stdout).toBe(`${warning}0 errors, 1 warning\n`);
    expect(run.stderr.startsWith(warning)).toBe(true);
    expect(run.stderr).toContain('has no API key: set OPENAI_API_KEY');
    for (const out of [validate.stdout, validate.stderr, run.stdout, run.stderr])
      expect(out).not.toContain('sk-not-a-real-key');
  });

  it("a tool written inline in an agent's tools, with name and command, says where a tool is declared", async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\ntools:\n  - name: clock\n    command: { argv: [date] }\n',
    });
    const validate = await agentctl(['validate'], { cwd: dir });
    const hint =
      '; a tool is declared in a `kind: tool` document of its own (`name`, `description`, `parameters`, and `command`, `http` or `module`) and listed here by its name: `- clock` [unknown-key]';
    expect(validate.stdout).toBe(
      `agents/a.yaml:5:5: error: unknown key \`name\` in \`tools\`${hint}\n` +
        `agents/a.yaml:6:5: error: unknown key \`command\` in \`tools\`${hint}\n2 errors, 0 warnings\n`,
    );
    expect(validate.code).toBe(1);
  });

  it('a duration written as a bare number of seconds is a warning naming the unit, in agents and tests', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: offline/echo\nlimits: { timeout: 30, tool_timeout: 1500 }\n',
      'tests/t.yaml': 'kind: test\nname: t\nagent: a\ntimeout: 5\nturns:\n  - user: hi\n',
    });
    const [validate, strict, run] = await Promise.all([
      agentctl(['validate'], { cwd: dir }),
      agentctl(['validate', '--strict'], { cwd: dir }),
      agentctl(['run', 'a', 'hi'], { cwd: dir }),
    ]);
    const agent =
      'agents/a.yaml:4:20: warning: `timeout: 30` is 30 milliseconds (a number counts milliseconds); write `30s` for seconds, or `30ms` if milliseconds are meant [duration-unit]\n';
    expect(validate.stdout).toBe(
      `${agent}tests/t.yaml:4:10: warning: \`timeout: 5\` is 5 milliseconds (a number counts milliseconds); write \`5s\` for seconds, or \`5ms\` if milliseconds are meant [duration-unit]\n0 errors, 2 warnings\n`,
    );
    expect(validate.code).toBe(0);
    expect(strict.code).toBe(1);
    // The run goes on (its outcome is the 30 ms limit's: under load even an offline answer misses it).
    expect(run.stderr.startsWith(agent), run.stderr).toBe(true);
  });

  it('an unset ${VAR:?message} is one error from run, not also a warning', async () => {
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml':
        'kind: agent\nname: a\nmodel: fast\n---\nkind: model\nname: fast\nprovider: anthropic\nmodel: claude-sonnet-4-6\napi_key: ${MY_KEY:?set MY_KEY to your key}\n',
    });
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env: { MY_KEY: undefined } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'agents/a.yaml:9:10: error: environment variable MY_KEY is not set: set MY_KEY to your key [env-required]\n' +
        'agentctl: 1 error(s) in the project; nothing was run\n',
    );
  });
});

describe('a module tool importing a package the project has not installed (before `npm install`)', () => {
  it('says which package to install, in validate and run, without a require stack', async () => {
    const tool =
      "import { defineTool } from '@agentctl/core';\nexport default defineTool({ name: 'ping', description: 'pings', parameters: { type: 'object', properties: {} }, execute: async () => 'pong' });\n";
    const dir = await tempProject({
      'agentctl.yaml': PROJECT,
      'agents/a.yaml': 'kind: agent\nname: a\nmodel: offline/auto\ntools: [{ module: ../tools/ping.ts }]\n',
      'tools/ping.ts': tool,
    });
    const hint =
      "Cannot find module '@agentctl/core' (is `@agentctl/core` installed in the project? `npm install` it)";
    // pnpm's NODE_PATH (set for the test runner) would find the workspace's copy; a user's shell has none.
    const env = { NODE_PATH: undefined };
    const validate = await agentctl(['validate'], { cwd: dir, env });
    expect(validate.code, validate.stdout + validate.stderr).toBe(1);
    expect(validate.stdout).toBe(
      `agents/a.yaml:4:19: error: module ../tools/ping.ts failed to load: ${hint} [module-exports]\n1 error, 0 warnings\n`,
    );
    const run = await agentctl(['run', 'a', 'hi'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `agents/a.yaml:4:19: error: ${hint} [tool]\nagentctl: 1 error(s) in the project; nothing was run\n`,
    );
  });
});
