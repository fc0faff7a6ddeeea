import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { SourceRange } from '../diagnostic.js';

/** A path into a document's data: keys and list indexes. */
export type DataPath = ReadonlyArray<string | number>;

/** Turns `/a/0/b~1c` (an Ajv instancePath) into `['a', 0, 'b/c']`. */
export function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
    });
}

/** The range of text between two offsets. */
export function offsetRange(lineCounter: LineCounter, start: number, end: number): SourceRange {
  const a = lineCounter.linePos(start);
  const b = lineCounter.linePos(Math.max(start, end));
  return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
}

function rangeOf(
  node: Node | null | undefined,
  lineCounter: LineCounter,
  fallback: SourceRange,
): SourceRange {
  if (!node?.range) return fallback;
  return offsetRange(lineCounter, node.range[0], node.range[1]);
}

/** Where a data path sits in a YAML document: the value node, or its key with `key: true`. */
export function locate(
  doc: Document,
  lineCounter: LineCounter,
  path: DataPath,
  options: { key?: boolean } = {},
): SourceRange {
  const docStart = doc.contents?.range ? doc.contents.range[0] : 0;
  let range = offsetRange(lineCounter, docStart, docStart);
  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const segment = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment),
      );
      if (!pair) return range;
      if (last && options.key) return rangeOf(pair.key as Node, lineCounter, range);
      range = rangeOf(
        (pair.value ?? pair.key) as Node,
        lineCounter,
        rangeOf(pair.key as Node, lineCounter, range),
      );
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as Node | undefined;
      if (!item) return range;
      range = rangeOf(item, lineCounter, range);
      node = item;
    } else {
      return range;
    }
  }
  return range;
}

/** The key range when `path` ends at a mapping key, else the value's range. */
export function locateKey(doc: Document, lineCounter: LineCounter, path: DataPath): SourceRange {
  return locate(doc, lineCounter, path, { key: true });
}
