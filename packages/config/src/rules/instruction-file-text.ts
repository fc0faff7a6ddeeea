import type { SourceRange } from '../diagnostic.js';
import { displayPath, readProjectFile, resolveProjectPath } from '../paths.js';
import type { RuleContext } from './rule.js';

/**
 * The text of an agent's `instruction_file` and the path diagnostics show for it, or undefined
 * when it cannot be read (the file-path rule says why).
 */
export function instructionFileText(
  ctx: RuleContext,
  from: string,
  written: string,
): { file: string; text: string } | undefined {
  try {
    const text = readProjectFile(ctx.root, from, written, 'instruction file');
    return { file: displayPath(ctx.root, resolveProjectPath(ctx.root, from, written).absolute), text };
  } catch {
    return undefined;
  }
}

/** The line and column range of `length` characters at `index` in `text` (1-based). */
export function rangeIn(text: string, index: number, length: number): SourceRange {
  const at = (offset: number) => {
    const before = text.slice(0, offset);
    return { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
  };
  const start = at(index);
  const end = at(index + length);
  return { line: start.line, col: start.col, endLine: end.line, endCol: end.col };
}
