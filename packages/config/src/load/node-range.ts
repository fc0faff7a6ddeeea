import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { SourceRange } from '../diagnostic.js';
import type { DocumentPositions, PositionNode, Span } from './document-positions.js';

export type { DataPath } from './document-positions.js';

/** The range of text between two offsets. */
export function offsetRange(lineCounter: LineCounter, start: number, end: number): SourceRange {
  const a = lineCounter.linePos(start);
  const b = lineCounter.linePos(Math.max(start, end));
  return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
}

function span(lineCounter: LineCounter, start: number, end: number): Span {
  const { line, col, endLine, endCol } = offsetRange(lineCounter, start, end);
  return [line, col, endLine, endCol];
}

/**
 * The positions of every node of a parsed document, as plain data: what `locate` reads, with or
 * without the `yaml` library loaded. An alias holds the children of the node it names.
 */
export function documentPositions(doc: Document, lineCounter: LineCounter): DocumentPositions {
  const rangeOf = (node: unknown): Span | undefined =>
    isNode(node) && node.range ? span(lineCounter, node.range[0], node.range[1]) : undefined;
  const build = (node: unknown): PositionNode => {
    const out: PositionNode = {};
    const r = rangeOf(node);
    if (r) out.r = r;
    const target = isAlias(node) ? node.resolve(doc) : node;
    if (isMap(target)) {
      out.m = target.items.map((pair) => [
        isScalar(pair.key) ? String(pair.key.value) : String(pair.key),
        rangeOf(pair.key),
        pair.value == null ? undefined : build(pair.value),
      ]);
    } else if (isSeq(target)) {
      out.s = target.items.map((item) => build(item));
    }
    return out;
  };
  const start = doc.contents?.range ? doc.contents.range[0] : 0;
  return {
    start: span(lineCounter, start, start),
    root: doc.contents == null ? undefined : build(doc.contents as Node),
  };
}
