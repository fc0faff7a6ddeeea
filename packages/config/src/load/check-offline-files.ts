import { missingCassette, readCassette } from '../compile/cassette-file.js';
import { parseScript } from '../compile/offline-provider.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { type Env, interpolate, MissingEnvError } from '../env/interpolate.js';
import { displayPath, readRegularFile, resolveProjectPath } from '../paths.js';
import type { Registry } from '../registry.js';
import type { ModelSpec } from '../spec-types.js';
import type { IndexedEntry } from './index-documents.js';

/**
 * Reads the files models play offline as compile will: each script of an offline script model,
 * and the cassette of a model that replays (offline/replay, or a network model whose `api_key` is
 * empty with this environment). A file that is not YAML, not a list of turns or not a cassette is
 * an error at the model's field naming the file's line and column, and so is a cassette played back
 * that does not exist. Other paths that do not resolve to a readable file are the file-path rule's.
 */
export async function checkOfflineFiles(
  root: string,
  entries: readonly IndexedEntry[],
  env: Env,
  registry?: Registry,
): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'model' || !entry.valid) continue;
    const spec = entry.spec as ModelSpec;
    const offline = spec.provider === 'offline';
    if (offline && spec.model === 'script' && typeof spec.script === 'string') {
      const file = readable(root, entry, spec.script);
      if (file)
        await parseScript(file.text, file.shown).catch((error: Error) =>
          out.push(diagnostic(entry.file, entry.locate(['script']), 'offline-file', error.message)),
        );
    }
    if (typeof spec.cassette === 'string' && replays(spec, offline, env, registry)) {
      const file = readable(root, entry, spec.cassette);
      if (file)
        await readCassette(file.absolute, file.shown).catch((error: Error) =>
          out.push(diagnostic(entry.file, entry.locate(['cassette']), 'offline-file', error.message)),
        );
      // The file-path rule lets a cassette be missing (`test --update` writes it); one played back cannot be.
      const missing = missingFile(root, entry, spec.cassette);
      if (missing)
        out.push(
          diagnostic(entry.file, entry.locate(['cassette']), 'offline-file', missingCassette(missing)),
        );
    }
  }
  return out;
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
