import { join } from 'node:path';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ProjectSpecs } from '../load/project-specs.js';
import { displayPath, readProjectFile, resolveProjectPath } from '../paths.js';
import { PROJECT_FILE } from '../project-root.js';
import type { ProjectSpec } from '../spec-types.js';
import { dotenvProblems, parseDotenv } from './dotenv.js';
import type { Env } from './interpolate.js';

/**
 * The environment of a project: the given one (default process.env) over the project's .env file.
 * `env_file` is relative to agentctl.yaml (the project root) and read through the one path
 * resolver: a file outside the project, a FIFO or one over the size cap is not read (the
 * `file-path` rule says why when `env_file` names it).
 */
export async function projectEnv(root: string, specs: ProjectSpecs | undefined, given?: Env): Promise<Env> {
  const text = envFileText(root, specs)?.text;
  return { ...(text === undefined ? {} : parseDotenv(text)), ...(given ?? process.env) };
}

/**
 * {@link projectEnv}, and warnings at the lines of the project's .env file that set nothing
 * (`OPENAI_API_KEY: sk-...` is YAML, not .env): the file is read as it is for a run, so they would
 * be skipped in silence. The file is read once for both.
 */
export function projectEnvChecked(
  root: string,
  specs: ProjectSpecs | undefined,
  given?: Env,
): { env: Env; diagnostics: Diagnostic[] } {
  const read = envFileText(root, specs);
  const env = { ...(read === undefined ? {} : parseDotenv(read.text)), ...(given ?? process.env) };
  if (!read) return { env, diagnostics: [] };
  const file = displayPath(root, read.absolute);
  const diagnostics = dotenvProblems(read.text).map(({ line, col, message }) =>
    diagnostic(file, { line, col, endLine: line, endCol: col }, 'env-file', message, 'warning'),
  );
  return { env, diagnostics };
}

function envFileText(
  root: string,
  specs: ProjectSpecs | undefined,
): { absolute: string; text: string } | undefined {
  const envFile = (specs?.project?.spec as ProjectSpec | undefined)?.env_file ?? '.env';
  const from = join(root, PROJECT_FILE);
  try {
    return {
      absolute: resolveProjectPath(root, from, envFile).absolute,
      text: readProjectFile(root, from, envFile, 'env file'),
    };
  } catch {
    // A missing or unreadable .env is treated as absent; validate needs no secrets.
    return undefined;
  }
}
