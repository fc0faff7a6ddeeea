import {
  type Document,
  isCollection,
  isNode,
  isScalar,
  LineCounter,
  type Node,
  parseAllDocuments,
  visit,
} from 'yaml';
import { type Diagnostic, diagnostic, FILE_START, type SourceRange } from '../diagnostic.js';
import { excerpt } from '../rules/excerpt.js';
import { documentPositions, offsetRange } from './node-range.js';
import { MAX_ALIAS_COUNT, MAX_DEPTH, type ParsedDocument, type ParsedFile } from './parse-file.js';
import { withoutBom } from './without-bom.js';
import { YAML_OPTIONS } from './yaml-options.js';
import { yamlSyntaxProblem } from './yaml-syntax-problem.js';

/** Parses YAML text into documents and diagnostics. */
export function parseText(source: string, absFile: string, file: string): ParsedFile {
  const text = withoutBom(source);
  const diagnostics: Diagnostic[] = [];
  const documents: ParsedDocument[] = [];
  const lineCounter = new LineCounter();
  let docs: Document[];
  try {
    const tooDeep = depthProblem(text);
    if (tooDeep !== undefined) {
      const range = offsetRange(indexLines(text), tooDeep, tooDeep + 1);
      diagnostics.push(diagnostic(file, range, 'yaml-syntax', `nesting is deeper than ${MAX_DEPTH} levels`));
      return { documents, diagnostics };
    }
    docs = parseAllDocuments(text, { ...YAML_OPTIONS, lineCounter, strict: true }) as Document[];
    if (!Array.isArray(docs)) docs = [];
  } catch (error) {
    diagnostics.push(
      diagnostic(file, FILE_START, 'yaml-syntax', `cannot parse YAML: ${(error as Error).message}`),
    );
    return { documents, diagnostics };
  }
  if (docs.every(isEmptyDocument) && docs.every((doc) => doc.errors.length === 0)) {
    diagnostics.push(diagnostic(file, FILE_START, 'empty-file', 'file holds no YAML document', 'warning'));
    return { documents, diagnostics };
  }
  let lines: string[] | undefined;
  // Split once, and only for a file with something to explain.
  const textLines = () => {
    lines ??= text.split('\n');
    return lines;
  };
  // Only text that can hold an alias or a collection key pays for the walk. Asked once per file:
  // asked per document, a 1 MiB file of small documents read its whole text 20,000 times (half a minute).
  const mayHaveShapeProblem = text.includes('*') || text.includes('?') || /[\]}]\s*:/.test(text);
  docs.forEach((doc, index) => {
    // The parser reports one mistake as several errors where it gave up (two on one line for a
    // key indented too far): the first of each line says it, in the author's terms.
    const said = new Set<number>();
    for (const problem of doc.errors) {
      const line = lineCounter.linePos(problem.pos[0]).line;
      if (said.has(line)) continue;
      said.add(line);
      const { range, message, masksRest } = yamlSyntaxProblem(text, lineCounter, problem, textLines());
      diagnostics.push(diagnostic(file, range, 'yaml-syntax', message));
      if (masksRest) break;
    }
    for (const problem of doc.warnings) {
      const [start, end] = problem.pos;
      diagnostics.push(
        diagnostic(
          file,
          offsetRange(lineCounter, start, end),
          'yaml-syntax',
          yamlSyntaxProblem(text, lineCounter, problem, textLines()).message,
          'warning',
        ),
      );
    }
    if (doc.errors.length > 0 || doc.contents === null || isEmptyDocument(doc)) return;
    const shape = mayHaveShapeProblem ? shapeProblem(doc, docs.slice(0, index), lineCounter) : undefined;
    if (shape) {
      diagnostics.push(diagnostic(file, rangeOf(lineCounter, shape.node), 'yaml-syntax', shape.message));
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      const range = doc.contents.range
        ? offsetRange(lineCounter, doc.contents.range[0], doc.contents.range[0])
        : FILE_START;
      const message = /excessive alias count/i.test((error as Error).message)
        ? `too many aliases expanded (more than ${MAX_ALIAS_COUNT}); refusing a possible alias bomb`
        : `cannot read YAML document: ${(error as Error).message}`;
      diagnostics.push(diagnostic(file, range, 'yaml-syntax', message));
      return;
    }
    documents.push({ file, absFile, index, positions: documentPositions(doc, lineCounter), value });
  });
  return { documents, diagnostics };
}

// Nothing between two `---` (or after the last one, as files written for kubectl often end), or
// only comments: YAML's empty document holds no value to check or to ignore. `~` or `null`
// written out is a value, and refused as a document.
function isEmptyDocument(doc: Document): boolean {
  const contents = doc.contents;
  return contents === null || (isScalar(contents) && contents.source === '' && contents.tag === undefined);
}

/**
 * What the loader refuses in a well-formed document: an alias with no anchor before it, an alias
 * inside the node it names (a cycle, which would recurse forever in every rule), and a key that is a collection (a JS object key can
 * only be a string).
 */
function shapeProblem(
  doc: Document,
  earlier: readonly Document[],
  lineCounter: LineCounter,
): { node: Node; message: string } | undefined {
  let found: { node: Node; message: string } | undefined;
  visit(doc, {
    Alias(_, node, path) {
      const target = node.resolve(doc);
      if (!target) {
        const name = excerpt(node.source);
        const line = anchorLine(earlier, node.source, lineCounter);
        found = {
          node,
          message:
            line === undefined
              ? `alias *${name} names no anchor: write \`&${name}\` on a node before it`
              : `alias *${name} names no anchor in its document: \`&${name}\` on line ${line} is in an earlier document, and an anchor holds only until the next \`---\`; repeat the value here`,
        };
        return visit.BREAK;
      }
      if (path.includes(target as never)) {
        found = { node, message: `alias *${excerpt(node.source)} refers to a node it is inside: a cycle` };
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_, pair) {
      if (isCollection(pair.key) && isNode(pair.key)) {
        found = { node: pair.key, message: 'a key must be a plain value, not a list or a mapping' };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

// The line of the last `&name` in the documents before, which a later document cannot reach.
function anchorLine(docs: readonly Document[], name: string, lineCounter: LineCounter): number | undefined {
  let line: number | undefined;
  for (const doc of docs)
    visit(doc, (_, node) => {
      if (isNode(node) && node.anchor === name && node.range) line = lineCounter.linePos(node.range[0]).line;
    });
  return line;
}

function rangeOf(lineCounter: LineCounter, node: Node): SourceRange {
  return node.range ? offsetRange(lineCounter, node.range[0], node.range[1]) : FILE_START;
}

/** The offset where flow or block nesting passes the limit, without building anything. */
function depthProblem(text: string): number | undefined {
  let flow = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++flow > MAX_DEPTH) return i;
    } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--;
  }
  let offset = 0;
  for (const line of text.split('\n')) {
    let indent = 0;
    while (indent < line.length && (line[indent] === ' ' || line[indent] === '-')) indent++;
    if (indent > MAX_DEPTH * 4) return offset;
    offset += line.length + 1;
  }
  return undefined;
}

function indexLines(text: string): LineCounter {
  const counter = new LineCounter();
  counter.addNewLine(0);
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) counter.addNewLine(i + 1);
  return counter;
}
