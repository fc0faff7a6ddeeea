import type { SourceRange } from '../diagnostic.js';
import { type DataPath, locate } from '../load/document-positions.js';
import { MAX_ALIAS_COUNT } from '../load/parse-file.js';
import { withoutBom } from '../load/without-bom.js';
import { YAML_OPTIONS } from '../load/yaml-options.js';

/** A YAML file read besides the project's documents (a script, a cassette), with where its nodes are. */
export interface YamlFile {
  data: unknown;
  /** Where a path into `data` was written. */
  at(path: DataPath): SourceRange;
}

/**
 * Parses a script's or a cassette's text. A syntax error is thrown, made by `fail`, as
 * `shown:line:col: not valid YAML: ...` (its first line only).
 */
export async function parseYamlFile(
  text: string,
  shown: string,
  fail: (message: string) => Error,
): Promise<YamlFile> {
  // yaml and its positions are loaded only by a project that plays a script or a cassette.
  const [{ LineCounter, parseDocument }, { documentPositions }] = await Promise.all([
    import('yaml'),
    import('../load/node-range.js'),
  ]);
  const lineCounter = new LineCounter();
  const doc = parseDocument(withoutBom(text), { ...YAML_OPTIONS, lineCounter });
  const syntax = doc.errors[0];
  if (syntax) {
    const at = lineCounter.linePos(syntax.pos[0]);
    throw fail(`${shown}:${at.line}:${at.col}: not valid YAML: ${syntax.message.split('\n')[0]}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // yaml's own words name neither the file nor the limit.
    const message = /excessive alias count/i.test((error as Error).message)
      ? `too many aliases expanded (more than ${MAX_ALIAS_COUNT}); refusing a possible alias bomb`
      : (error as Error).message;
    throw fail(`${shown}: not valid YAML: ${message}`);
  }
  return { data, at: (path) => locate(documentPositions(doc, lineCounter), path) };
}
