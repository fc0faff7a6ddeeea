import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../packages/config/src/index.js';
import { agentctl, REPO, removeTempDirs, tempDir } from './support/cli.js';

// docs/cli.md and `agentctl COMMAND --help` name the same options: a flag in the docs exists, and
// a flag of the command is documented where a user looks for that command.

/** Options named in a text: `--long`, and `-C`, the one short option the docs use. */
const flagsIn = (text: string): Set<string> =>
  new Set([...text.matchAll(/(?<![\w-])(--[a-z][a-z-]*[a-z]|-C\b)/g)].map((m) => m[1]));

/** An option of `--help`: its names (`-C, --project <dir>` gives both). */
type HelpOption = string[];

function helpOptions(help: string): HelpOption[] {
  const options = help.split(/^Options:\n/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...options.matchAll(/^ {2}(-[^\s,]+(?:, --[^\s,]+)?)/gm)]
    .map((m) => m[1].split(', '))
    .filter((names) => !names.includes('--help'));
}

function helpCommands(help: string): string[] {
  const commands = help.split(/^Commands:\n/m)[1] ?? '';
  return [...commands.matchAll(/^ {2}([a-z]+)/gm)].map((m) => m[1]).filter((c) => c !== 'help');
}

/** A page of the docs, by file name, read once. */
const pages = new Map<string, string>();
const page = async (name: string) => {
  if (!pages.has(name)) pages.set(name, await readFile(join(REPO, 'docs', name), 'utf8'));
  return pages.get(name)!;
};

interface Documented {
  /** Where a user reads about the command: its table rows, its sections and the pages they link to. */
  text: string;
  /** Where the docs give the command's own grammar: the rows' first cells, the options that start a bullet or a table row of its sections. */
  grammar: string;
}

async function documented(cli: string, command: string): Promise<Documented> {
  const [intro, ...sections] = cli.split(/^(?=## )/m);
  const rows = intro
    .split('\n')
    .filter((line) => line.startsWith(`| \`${command} `) || line.startsWith(`| \`${command}\``));
  const own = sections.filter((s) => {
    const heading = s.slice(0, s.indexOf('\n'));
    return heading.includes(`\`${command}\``) || heading.includes(`\`${command} `);
  });
  let text = [...rows, ...own].join('\n');
  let grammar = rows.map((row) => row.split(/(?<!\\)\|/)[1]).join('\n');
  for (const s of own) {
    for (const m of s.matchAll(/^(?:- |\| )`(--[a-z-]+)/gm)) grammar += `\n${m[1]}`;
  }
  for (const [, linked] of text.matchAll(/\]\(([a-z-]+\.md)\)/g)) {
    const other = await page(linked);
    text += `\n${other}`;
    // A linked page's table of options is the command's grammar too (serve.md's options).
    for (const m of other.matchAll(/^\| `(--[a-z-]+)/gm)) grammar += `\n${m[1]}`;
  }
  return { text, grammar };
}

afterAll(removeTempDirs);

let cli: string;
let top: string;
let commands: string[];
const help = new Map<string, HelpOption[]>();

beforeAll(async () => {
  cli = await readFile(join(REPO, 'docs/cli.md'), 'utf8');
  top = (await agentctl(['--help'])).stdout;
  commands = helpCommands(top);
  const helps = await Promise.all(commands.map((c) => agentctl([c, '--help'])));
  commands.forEach((c, i) => {
    expect(helps[i].code, helps[i].stderr).toBe(0);
    help.set(c, helpOptions(helps[i].stdout));
  });
});

describe('docs/cli.md and --help', () => {
  it('every command is in the table of commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(12);
    for (const command of commands) expect(cli, command).toMatch(new RegExp(`^\\| \`${command}[ \`]`, 'm'));
  });

  it("every option of a command's --help is documented with that command", async () => {
    const missing: string[] = [];
    for (const command of commands) {
      const { text } = await documented(cli, command);
      const named = flagsIn(text);
      for (const names of help.get(command)!)
        if (!names.some((n) => named.has(n))) missing.push(`${command} ${names.join(', ')}`);
    }
    for (const names of helpOptions(top))
      if (!names.some((n) => flagsIn(cli.split('\n## ')[0]).has(n)))
        missing.push(`agentctl ${names.join(', ')}`);
    expect(missing).toEqual([]);
  });

  it("every option the docs give in a command's grammar is in its --help", async () => {
    const global = helpOptions(top).flat();
    const unknown: string[] = [];
    let checked = 0;
    for (const command of commands) {
      const { grammar } = await documented(cli, command);
      const names = new Set([...help.get(command)!.flat(), ...global]);
      for (const flag of flagsIn(grammar)) {
        checked++;
        if (!names.has(flag)) unknown.push(`${command} ${flag}`);
      }
    }
    expect(unknown).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('every option named anywhere in docs/cli.md is an option of some command', () => {
    const all = new Set(['--help', ...helpOptions(top).flat(), ...[...help.values()].flat().flat()]);
    const unknown = [...flagsIn(cli)].filter((flag) => !all.has(flag));
    expect(unknown).toEqual([]);
  });

  it("schema's --help names every kind it takes", async () => {
    const { stdout } = await agentctl(['schema', '--help']);
    const line = stdout
      .split(/^Arguments:\n/m)[1]
      .split(/^\S/m)[0]
      .replace(/\s+/g, ' ');
    for (const kind of KINDS) expect(line, kind).toMatch(new RegExp(`\\b${kind}\\b`));
  });
});

describe("docs/cli.md's table of what init writes", () => {
  it('names every file of every template', async () => {
    const section = cli.split(/^## `init`\n/m)[1].split(/^## /m)[0];
    const named = new Set([...section.matchAll(/`([\w./*-]+)`/g)].map((m) => m[1]));
    const root = await tempDir();
    const missing: string[] = [];
    for (const template of ['single', 'team', 'pipeline', 'mcp']) {
      const dir = join(root, template);
      const { code, stderr } = await agentctl(['init', dir, '--template', template]);
      expect(code, stderr).toBe(0);
      for (const file of await readdir(dir, { recursive: true, withFileTypes: true })) {
        if (!file.isFile()) continue;
        const path = relative(dir, join(file.parentPath, file.name));
        // agents/*.yaml and tests/AGENT.yaml stand for the template's agents and tests.
        const pattern = path
          .replace(/^agents\/[^/]+\.yaml$/, 'agents/*.yaml')
          .replace(/^tests\/[^/]+\.yaml$/, 'tests/AGENT.yaml');
        if (!named.has(pattern)) missing.push(`${template}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
