import { join } from 'node:path';
import type { ProjectSpecs } from '../load/project-specs.js';
import { readProjectFile } from '../paths.js';
import { PROJECT_FILE } from '../project-root.js';
import type { ProjectSpec } from '../spec-types.js';
import { parseDotenv } from './dotenv.js';
import type { Env } from './interpolate.js';

/**
 * The environment of a project: the given one (default process.env) over the project's .env file.
 * `env_file` is relative to agentctl.yaml (the project root) and read through the one path
 * resolver: a file outside the project, a FIFO or one over the size cap is not read (the
 * `file-path` rule says why when `env_file` names it).
 */
export async function projectEnv(root: string, specs: ProjectSpecs | undefined, given?: Env): Promise<Env> {
  const envFile = (specs?.project?.spec as ProjectSpec | undefined)?.env_file ?? '.env';
  let fromFile: Record<string, string> = {};
  try {
    fromFile = parseDotenv(readProjectFile(root, join(root, PROJECT_FILE), envFile, 'env file'));
  } catch {
    // A missing or unreadable .env is treated as absent; validate needs no secrets.
  }
  return { ...fromFile, ...(given ?? process.env) };
}
