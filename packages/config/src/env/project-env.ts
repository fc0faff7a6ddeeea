import { join } from 'node:path';
import type { ProjectSpecs } from '../load/project-specs.js';
import type { ProjectSpec } from '../spec-types.js';
import { readDotenv } from './dotenv.js';
import type { Env } from './interpolate.js';

/** The environment of a project: the given one (default process.env) over the project's .env file. */
export async function projectEnv(root: string, specs: ProjectSpecs | undefined, given?: Env): Promise<Env> {
  const envFile = (specs?.project?.spec as ProjectSpec | undefined)?.env_file ?? '.env';
  let fromFile: Record<string, string> = {};
  try {
    fromFile = await readDotenv(join(root, envFile));
  } catch {
    // An unreadable .env is treated as absent; validate needs no secrets.
  }
  return { ...fromFile, ...(given ?? process.env) };
}
