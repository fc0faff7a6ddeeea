import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { SCHEMA_DIR } from '@agentctl/config';
import { CliError, EXIT } from '../../cli-error.js';
import type { Io } from '../../io.js';

/** `agentctl init [dir]`: a new project with an agent and a tool that run offline at once. */
export async function initCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const dir = resolve(io.cwd, String(options.dir ?? '.'));
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.filter((name) => !name.startsWith('.')).length > 0 && !options.force) {
    throw new CliError(`${dir} is not empty; use --force to write into it`, EXIT.usage);
  }
  const schema = join(SCHEMA_DIR, 'agentctl.schema.json');
  const modeline = (from: string) => `# yaml-language-server: $schema=${relative(from, schema)}\n`;
  const files: Record<string, string> = {
    'agentctl.yaml': `${modeline(dir)}kind: project\nname: ${sanitize(dir)}\ninclude: [agents/**/*.yaml]\n`,
    'agents/assistant.yaml': `${modeline(join(dir, 'agents'))}kind: agent
name: assistant
description: A first agent; answers offline until you give it a real model.
model: offline/auto          # try openai/gpt-4.1-mini with OPENAI_API_KEY set
instruction: |
  You help with questions about {{ state.topic }}. Today is {{ date }}.
tools:
  - builtin: current_time
  - clock
---
kind: tool
name: clock
description: Prints the date and time of this machine
parameters: { type: object, properties: {} }
command:
  argv: [date, -u]
needs_approval: false
`,
    '.gitignore': '.agentctl/\n.env\n',
  };
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text, { flag: options.force ? 'w' : 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST')
          throw new CliError(`${path} exists; use --force to overwrite it`, EXIT.usage);
        throw error;
      },
    );
  }
  const where = relative(io.cwd, dir) || '.';
  io.stdout(`created a project in ${where}\nnext: agentctl -C ${where} run assistant "what time is it?"\n`);
  return 0;
}

function sanitize(dir: string): string {
  const base = dir.split('/').filter(Boolean).pop() ?? 'project';
  return base.replace(/[^A-Za-z0-9_-]/g, '-') || 'project';
}
