import type { SessionExport } from '@agentctl/core';

/**
 * The text of `JSON.stringify(data, null, 2)` and a newline, in pieces: each event and message of
 * each session is stringified on its own, so an export of any size is written (one string of it
 * all stops at V8's longest string, 512 MB) and never held whole in memory.
 *
 * @example
 * for (const piece of exportText(await store.exportSession(id))) out.write(piece);
 */
export function* exportText(data: SessionExport): Generator<string> {
  yield* exportPieces(data, '');
  yield '\n';
}

/** Pieces of one value: a generator walking it, or its whole text (undefined when JSON leaves it out). */
type Pieces = Iterable<string> | string | undefined;

function* exportPieces(data: SessionExport, indent: string): Generator<string> {
  yield* objectPieces(data, indent, (key, value, inner) => {
    if (key === 'session' && isObject(value)) return objectPieces(value, inner, sessionPart);
    if (key === 'children' && Array.isArray(value))
      return arrayPieces(value, inner, (child, at) =>
        isObject(child) ? exportPieces(child as unknown as SessionExport, at) : wholeText(child, at),
      );
    return wholeText(value, inner);
  });
}

// A session's long lists go an item at a time; the rest (state, checkpoint) is small.
function sessionPart(key: string, value: unknown, indent: string): Pieces {
  if ((key === 'events' || key === 'messages') && Array.isArray(value)) return arrayPieces(value, indent);
  return wholeText(value, indent);
}

function* objectPieces(
  object: object,
  indent: string,
  part: (key: string, value: unknown, indent: string) => Pieces,
): Generator<string> {
  const inner = `${indent}  `;
  let first = true;
  for (const [key, value] of Object.entries(object)) {
    const pieces = part(key, value, inner);
    // As JSON.stringify does: a key whose value JSON cannot hold (undefined, a function) is left out.
    if (pieces === undefined) continue;
    yield `${first ? '{\n' : ',\n'}${inner}${JSON.stringify(key)}: `;
    first = false;
    if (typeof pieces === 'string') yield pieces;
    else yield* pieces;
  }
  yield first ? '{}' : `\n${indent}}`;
}

function* arrayPieces(
  items: readonly unknown[],
  indent: string,
  each: (item: unknown, indent: string) => Pieces = wholeText,
): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  const inner = `${indent}  `;
  for (let i = 0; i < items.length; i++) {
    yield `${i === 0 ? '[\n' : ',\n'}${inner}`;
    // As JSON.stringify does: an item JSON cannot hold is written as null.
    const pieces = each(items[i], inner) ?? 'null';
    if (typeof pieces === 'string') yield pieces;
    else yield* pieces;
  }
  yield `\n${indent}]`;
}

// JSON escapes a newline inside a string, so every newline of the text is layout, indented here.
function wholeText(value: unknown, indent: string): string | undefined {
  const text = JSON.stringify(value, null, 2) as string | undefined;
  return text === undefined || indent === '' ? text : text.replaceAll('\n', `\n${indent}`);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
