import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configAssets } from '../assets.js';
import { missingCassette, parseCassette } from '../compile/cassette-file.js';
import { parseScript } from '../compile/offline-provider.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { type Env, interpolate, MissingEnvError } from '../env/interpolate.js';
import { displayPath, readRegularFile, resolveProjectPath } from '../paths.js';
import type { Registry } from '../registry.js';
import type { ModelSpec, ScriptTurnSpec } from '../spec-types.js';
import type { IndexedEntry } from './index-documents.js';
import type { FileCheckMemo } from './parse-cache.js';

/**
 * Reads the files models play offline as compile will: each script of an offline script model,
 * and the cassette of a model that replays (offline/replay, or a network model whose `api_key` is
 * empty with this environment). A file that is not YAML, not a list of turns or not a cassette is
 * an error at the model's field naming the file's line and column, and so is a cassette played back
 * that does not exist. Other paths that do not resolve to a readable file are the file-path rule's.
 * The call ids a valid script file's turns give are returned by model, for the rules that check
 * what names a call id. With a `memo` (the project's cache), a file checked before with the same
 * text is not parsed again: a run of a project with scripts then loads no YAML parser.
 */
export async function checkOfflineFiles(
  root: string,
  entries: readonly IndexedEntry[],
  env: Env,
  registry?: Registry,
  memo?: FileCheckMemo,
): Promise<OfflineFiles> {
  const out: Diagnostic[] = [];
  const scriptCallIds = new Map<IndexedEntry, readonly string[]>();
  // What `compute` says of the file (a problem, null for none, or ids as JSON), from the memo
  // when its text was checked before.
  const remembered = async (
    check: 'script' | 'script-ids' | 'cassette',
    file: { shown: string; text: string },
    compute: () => Promise<string | null>,
  ): Promise<string | null> => {
    const key = memo
      ? createHash('sha256')
          .update(`${checkFormat()}\0${check}\0${file.shown}\0${file.text}`)
          .digest('base64url')
      : '';
    const known = memo?.get(key);
    if (known !== undefined) return known;
    const value = await compute();
    memo?.set(key, value);
    return value;
  };
  const problemOf = (
    check: 'script' | 'cassette',
    file: { shown: string; text: string },
    parse: (text: string, shown: string) => Promise<unknown>,
  ): Promise<string | null> =>
    remembered(check, file, () =>
      parse(file.text, file.shown).then(
        () => null,
        (error: Error) => error.message,
      ),
    );
  for (const entry of entries) {
    if (entry.kind !== 'model' || !entry.valid) continue;
    const spec = entry.spec as ModelSpec;
    const offline = spec.provider === 'offline';
    if (offline && spec.model === 'script' && typeof spec.script === 'string') {
      const file = readable(root, entry, spec.script);
      const problem = file ? await problemOf('script', file, parseScript) : null;
      if (problem !== null)
        out.push(diagnostic(entry.file, entry.locate(['script']), 'offline-file', problem));
      else if (file) {
        const ids = await remembered('script-ids', file, async () =>
          JSON.stringify(callIdsOf(await parseScript(file.text, file.shown))),
        );
        if (ids !== null) scriptCallIds.set(entry, JSON.parse(ids) as string[]);
      }
    }
    if (typeof spec.cassette === 'string' && replays(spec, offline, env, registry)) {
      const file = readable(root, entry, spec.cassette);
      const problem = file ? await problemOf('cassette', file, parseCassette) : null;
      if (problem !== null)
        out.push(diagnostic(entry.file, entry.locate(['cassette']), 'offline-file', problem));
      // The file-path rule lets a cassette be missing (`test --update` writes it); one played back cannot be.
      const missing = missingFile(root, entry, spec.cassette);
      if (missing)
        out.push(
          diagnostic(entry.file, entry.locate(['cassette']), 'offline-file', missingCassette(missing)),
        );
    }
  }
  return { diagnostics: out, scriptCallIds };
}

/** What {@link checkOfflineFiles} found. */
export interface OfflineFiles {
  diagnostics: Diagnostic[];
  /** The `id:`s of the tool calls in each offline script model's valid script file. */
  scriptCallIds: Map<IndexedEntry, readonly string[]>;
}

/** The `id:`s a script's tool calls are given (calls without one get generated ids). */
export function callIdsOf(turns: readonly ScriptTurnSpec[]): string[] {
  const ids: string[] = [];
  for (const turn of turns)
    for (const call of turn.tool_calls ?? []) if (call.id !== undefined) ids.push(call.id);
  return ids;
}

// Bump when what a check reports of the same text changes; a release of this package (another
// turns schema, another YAML parser) makes other keys too.
let format: string | undefined;
function checkFormat(): string {
  if (format === undefined) {
    const manifest = readFileSync(join(configAssets().root, 'package.json'), 'utf8');
    format = `agentctl-offline-file-1\0${(JSON.parse(manifest) as { version: string }).version}`;
  }
  return format;
}

// Mirrors compile: offline/replay always plays its cassette; a network model plays it with no key.
function replays(spec: ModelSpec, offline: boolean, env: Env, registry?: Registry): boolean {
  if (offline) return spec.model === 'replay';
  if (registry?.describe('provider', spec.provider)?.capabilities?.needsNetwork === false) return false;
  try {
    return interpolate(spec.api_key ?? '', env) === '';
  } catch (error) {
    if (error instanceof MissingEnvError) return false; // run refuses it anyway: env-required's
    throw error;
  }
}

// The path shown for a file the model reads that is not there (inside the project).
function missingFile(root: string, entry: IndexedEntry, written: string): string | undefined {
  if (written.includes('$')) return undefined;
  const resolved = resolveProjectPath(root, entry.absFile, written);
  return resolved.escapes || resolved.type !== 'missing' ? undefined : displayPath(root, resolved.absolute);
}

function readable(
  root: string,
  entry: IndexedEntry,
  written: string,
): { absolute: string; shown: string; text: string } | undefined {
  if (written.includes('$')) return undefined;
  const resolved = resolveProjectPath(root, entry.absFile, written);
  if (resolved.escapes || resolved.type !== 'file') return undefined;
  try {
    return {
      absolute: resolved.absolute,
      shown: displayPath(root, resolved.absolute),
      text: readRegularFile(resolved.absolute),
    };
  } catch {
    return undefined; // too large, or changed while read: the file-path rule says why
  }
}
