import { lstat, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { blockingAncestor } from '@agentctl/config';
import { makeFolders } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { commandName } from '../../command-name.js';
import type { Io } from '../../io.js';
import { packageVersion } from '../../package-version.js';
import { VERSION } from '../../program.js';
import { shellQuote } from '../../shell-quote.js';
import { systemRefusal } from '../../system-refusal.js';
import { writeProjectSchema } from '../schema/project-schema.js';
import { PROJECT_SCHEMA, projectFiles } from './project-files.js';
import { TEMPLATE_FILES, TEMPLATES, type TemplateName } from './templates.js';

/**
 * `agentctl init [dir] [--template single|team|pipeline|mcp]`: a new project that validates and
 * runs offline at once, with its package, editor schema mapping and CI workflow.
 */
export async function initCommand(options: Record<string, unknown>, io: Io): Promise<number> {
  const dir = resolve(io.cwd, String(options.dir ?? '.'));
  const name = String(options.template ?? 'single');
  if (!(TEMPLATES as readonly string[]).includes(name)) {
    throw new CliError(`unknown template "${name}"; templates: ${TEMPLATES.join(', ')}`, EXIT.usage);
  }
  const template = TEMPLATE_FILES[name as TemplateName];
  if ((await stat(dir).catch(() => undefined))?.isDirectory() === false) {
    throw new CliError(`${dir} exists and is not a folder`, EXIT.usage);
  }
  if (
    (await lstat(dir).catch(() => undefined))?.isSymbolicLink() &&
    !(await stat(dir).catch(() => undefined))
  )
    throw new CliError(
      `${dir} is a link to ${await readlink(dir)}, which does not exist: create that folder, or remove the link`,
      EXIT.usage,
    );
  const blocker = blockingAncestor(dir);
  if (blocker) throw new CliError(`cannot create ${dir}: ${blocker} is not a folder`, EXIT.usage);
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.filter((entry) => !entry.startsWith('.')).length > 0 && !options.force) {
    throw new CliError(`${dir} is not empty; use --force to write into it`, EXIT.usage);
  }
  const files = {
    ...projectFiles(packageName(dir), { cli: VERSION, core: packageVersion('@agentctl/core') }, template),
    ...template.files,
    [`tests/${template.agent}.yaml`]: template.test,
  };
  // Every refusal comes before the first write: a half-written project would refuse the next
  // `init` as not empty, and `--force` would then overwrite what the user had (a .gitignore).
  const blocked = await inTheWay(dir, [...Object.keys(files), PROJECT_SCHEMA], Boolean(options.force));
  if (blocked.length > 0) {
    const hint = blocked.some((b) => b.overwrite) ? '; use --force to overwrite files' : '';
    throw new CliError(`nothing was written: ${blocked.map((b) => b.why).join(', ')}${hint}`, EXIT.usage);
  }
  // What this init made, so that a write the machine refuses (a full disk) leaves nothing behind.
  const made: string[] = [];
  try {
    for (const [file, text] of Object.entries(files)) {
      const path = join(dir, file);
      const folder = await makeFolders(join(path, '..'));
      if (folder !== undefined) made.push(folder);
      if (!(await stat(path).catch(() => undefined))) made.push(path);
      await writeFile(path, text, { flag: options.force ? 'w' : 'wx' });
    }
    if (!(await stat(join(dir, PROJECT_SCHEMA)).catch(() => undefined))) made.push(join(dir, PROJECT_SCHEMA));
    await writeProjectSchema(join(dir, PROJECT_SCHEMA));
  } catch (error) {
    for (const path of made.reverse())
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
    const refused = systemRefusal(error);
    if (refused) throw new CliError(`nothing was written: ${refused}`, EXIT.failed);
    throw error;
  }

  const where = relative(io.cwd, dir) || '.';
  const cli = commandName(io, dir);
  const lines = [`created a project in ${where} (template ${name})`];
  if (where !== '.') lines.push(`next: cd ${shellQuote(where)}`);
  if (template.needsInstall)
    lines.push('next: npm install   # the MCP server; from a clone: npm i <the packed tarballs> (README)');
  lines.push(`next: ${cli.command} run ${template.agent} ${shellQuote(template.prompt)}`);
  lines.push(`next: ${cli.command} test   # runs tests/${template.agent}.yaml`);
  if (cli.hint) lines.push(cli.hint);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** What stops `init` writing `files` into `dir`: a file already there, or something not a folder where one goes. */
async function inTheWay(
  dir: string,
  files: readonly string[],
  force: boolean,
): Promise<Array<{ why: string; overwrite: boolean }>> {
  const out: Array<{ why: string; overwrite: boolean }> = [];
  const seen = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      if (seen.has(rel)) continue;
      seen.add(rel);
      const info = await stat(join(dir, rel)).catch(() => undefined);
      if (!info) break;
      const isFolder = i < parts.length;
      if (isFolder && !info.isDirectory()) out.push({ why: `${rel} is not a folder`, overwrite: false });
      else if (!isFolder && !info.isFile()) out.push({ why: `${rel} is not a file`, overwrite: false });
      else if (!isFolder && !force) out.push({ why: `${rel} exists`, overwrite: true });
      if (!info.isDirectory()) break;
    }
  }
  return out;
}

// The folder's name, made fit for both npm (lowercase) and agentctl (a letter first, at most 64).
function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 64);
  return name || 'agentctl-project';
}
