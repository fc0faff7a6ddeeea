import { jsonChunks, type SessionExport } from '@agentctl/core';

/**
 * The text of `JSON.stringify(data, null, 2)` and a newline, in chunks: each event and message of
 * each session is stringified on its own, so an export of any size is written (one string of it
 * all stops at V8's longest string, 512 MB) and never held whole in memory.
 *
 * @example
 * for (const chunk of exportText(await store.exportSession(id))) out.write(chunk);
 */
export function* exportText(data: SessionExport): Generator<string> {
  yield* jsonChunks(data, { space: 2, split: exportPart });
  yield '\n';
}

// The export and its children a key at a time, each session's long lists an item at a time; the
// rest (state, checkpoint, each event) is small.
function exportPart(key: string | number, parentKey: string | number | undefined): boolean {
  if (parentKey === 'children') return true;
  return key === 'session' || key === 'children' || key === 'events' || key === 'messages';
}
