import { rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Cassette } from '@agentctl/core';
import { isPlainObject, makeFolders } from '@agentctl/core';
import type { DataPath } from '../load/document-positions.js';
import { readRegularFile } from '../paths.js';
import { parseYamlFile } from './yaml-file.js';

const HEADER =
  '# Recorded by `agentctl run --record`: model requests (normalised) and their responses.\n' +
  '# Played back by a model with `provider: offline`, `model: replay` and `cassette:` naming this file.\n';

/** A cassette file that cannot be read or is not a cassette; the message names file:line:col. */
export class CassetteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Reads a YAML (or JSON) cassette written by {@link writeCassette}. `display` is the path shown in
 * messages; a problem is reported at its line and column in the cassette.
 */
export async function readCassette(absolute: string, display = absolute): Promise<Cassette> {
  let text: string;
  try {
    text = readRegularFile(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteError(
      code === 'ENOENT'
        ? missingCassette(display)
        : `cannot read cassette ${display} (${code ?? (error as Error).message})`,
    );
  }
  return parseCassette(text, display);
}

/** The cassette a text holds; a problem is thrown as {@link readCassette} throws it. */
export async function parseCassette(text: string, display: string): Promise<Cassette> {
  const { data, at } = await parseYamlFile(text, display, (message) => new CassetteError(message));
  const problem = cassetteProblem(data);
  if (problem) {
    const where = at(problem.path);
    throw new CassetteError(`${display}:${where.line}:${where.col}: not a cassette: ${problem.message}`);
  }
  return data as Cassette;
}

/** What a model that replays a cassette which is not there is told, at validate and at run. */
export function missingCassette(display: string): string {
  return `cassette ${display} does not exist (record one with \`agentctl run <agent> --record ${display}\`)`;
}

/**
 * Writes a cassette as YAML, creating its folder; the file is replaced in one rename, so a reader
 * never sees half of it.
 *
 * @example
 * await writeCassette('agents/cassettes/run.yaml', cassette);
 */
export async function writeCassette(path: string, cassette: Cassette): Promise<void> {
  await makeFolders(dirname(path));
  const { stringify } = await import('yaml');
  const text = HEADER + stringify(cassette, { lineWidth: 0, aliasDuplicateObjects: false });
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(temporary, text, 'utf8');
  await rename(temporary, path);
}

const USAGE_COUNTS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'];

// The first thing wrong with the shape of a cassette, with where it is.
function cassetteProblem(data: unknown): { path: DataPath; message: string } | undefined {
  if (!isPlainObject(data)) return { path: [], message: 'expected a mapping with version and interactions' };
  if (data.version !== 1) return { path: ['version'], message: 'version must be 1' };
  if (!Array.isArray(data.interactions))
    return { path: ['interactions'], message: 'interactions must be a list' };
  for (const [i, item] of data.interactions.entries()) {
    const at = ['interactions', i];
    if (!isPlainObject(item)) return { path: at, message: 'an interaction must be a mapping' };
    const { request, response } = item;
    if (!isPlainObject(request)) return { path: [...at, 'request'], message: 'request must be a mapping' };
    if (typeof request.model !== 'string')
      return { path: [...at, 'request', 'model'], message: 'request.model must be a string' };
    if (!Array.isArray(request.messages))
      return { path: [...at, 'request', 'messages'], message: 'request.messages must be a list' };
    if (!isPlainObject(response)) return { path: [...at, 'response'], message: 'response must be a mapping' };
    if (response.content !== null && typeof response.content !== 'string')
      return { path: [...at, 'response', 'content'], message: 'response.content must be text or null' };
    if (!Array.isArray(response.toolCalls))
      return { path: [...at, 'response', 'toolCalls'], message: 'response.toolCalls must be a list' };
    for (const [j, call] of response.toolCalls.entries()) {
      const where = [...at, 'response', 'toolCalls', j];
      if (!isPlainObject(call)) return { path: where, message: 'a tool call must be a mapping' };
      for (const key of ['id', 'name'])
        if (typeof call[key] !== 'string' || call[key] === '')
          return { path: [...where, key], message: `a tool call's ${key} must be a non-empty string` };
      if (!isPlainObject(call.arguments))
        return { path: [...where, 'arguments'], message: "a tool call's arguments must be a mapping" };
    }
    if (!isPlainObject(response.usage))
      return { path: [...at, 'response', 'usage'], message: 'response.usage must be a mapping' };
    for (const [key, value] of Object.entries(response.usage)) {
      const where = [...at, 'response', 'usage', key];
      if (key === 'unreported') {
        if (typeof value !== 'boolean')
          return { path: where, message: 'response.usage.unreported must be true or false' };
      } else if (!USAGE_COUNTS.includes(key))
        // A misspelt count would replay as no count at all, and a token limit pass on it.
        return {
          path: where,
          message: `response.usage.${key} is not a usage field (${USAGE_COUNTS.join(', ')}, unreported)`,
        };
      else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        return { path: where, message: `response.usage.${key} must be a number of tokens` };
    }
  }
  return undefined;
}
