import type { SourceRange } from '../diagnostic.js';

/** A path into a document's data: keys and list indexes. */
export type DataPath = ReadonlyArray<string | number>;

/** A range as `[line, col, endLine, endCol]`: compact, since a cache stores one per node. */
export type Span = [line: number, col: number, endLine: number, endCol: number];

/** Where one node of a document and its children are: plain data, so it can be cached as JSON. */
export interface PositionNode {
  /** The node's own range; absent for what has none (a pair inside a list). */
  r?: Span;
  /** A mapping's pairs in order: the key as text, the key's range, the value's node. */
  m?: Array<[key: string, keyRange: Span | undefined, value: PositionNode | undefined]>;
  /** A list's items. */
  s?: Array<PositionNode | undefined>;
}

/** The positions of a whole YAML document, made once when it is parsed (see node-range.ts). */
export interface DocumentPositions {
  /** Where the document's content starts: the answer for a path that finds nothing. */
  start: Span;
  root?: PositionNode;
}

const range = ([line, col, endLine, endCol]: Span): SourceRange => ({ line, col, endLine, endCol });

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

/**
 * Where a data path sits in a document: the value, or its key with `key: true`. A path that goes
 * further than the document does stops at the last place found.
 */
export function locate(
  positions: DocumentPositions,
  path: DataPath,
  options: { key?: boolean } = {},
): SourceRange {
  // The empty path is the whole document: what `run AGENT` tests an error's position against to
  // know whose document it is in (a point here made every error inside a document look outside it).
  if (path.length === 0) return range(positions.root?.r ?? positions.start);
  let found = positions.start;
  let node = positions.root;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (node?.m) {
      const pair = node.m.find(([key]) => key === String(segment));
      if (!pair) break;
      const [, keyRange, value] = pair;
      if (i === path.length - 1 && options.key) return range(keyRange ?? found);
      found = value?.r ?? keyRange ?? found;
      node = value;
    } else if (node?.s && typeof segment === 'number') {
      const item = node.s[segment];
      if (!item) break;
      found = item.r ?? found;
      node = item;
    } else break;
  }
  return range(found);
}

/** The key range when `path` ends at a mapping key, else the value's range. */
export function locateKey(positions: DocumentPositions, path: DataPath): SourceRange {
  return locate(positions, path, { key: true });
}
