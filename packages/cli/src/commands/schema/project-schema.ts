import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { loadSchema } from '@agentctl/config';
import { bundleSchema } from './bundle-schema.js';

/** The stable `$id` of the published schema; the embedded kinds' ids resolve against it. */
export const SCHEMA_ID = 'https://agentctl.dev/schemas/agentctl.schema.json';

/** The self-contained JSON Schema of one kind (or of any document), with a stable `$id`. */
export function projectSchema(kind = 'agentctl'): object {
  const bundled = bundleSchema(loadSchema(kind), loadSchema) as { $id?: string };
  return { ...bundled, $id: new URL(`${kind}.schema.json`, SCHEMA_ID).href };
}

/** Writes {@link projectSchema} to `path`, making its folder. */
export async function writeProjectSchema(path: string, kind = 'agentctl'): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(projectSchema(kind), null, 2)}\n`);
}
