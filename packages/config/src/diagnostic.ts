/** A problem found in a project, pointing at the text that causes it. */
export interface Diagnostic {
  /** Relative to the project root (with `/`), or absolute when the file is outside it. */
  file: string;
  /** 1-based start line. */
  line: number;
  /** 1-based start column. */
  col: number;
  endLine: number;
  endCol: number;
  severity: 'error' | 'warning';
  /** A kebab-case rule id such as `unknown-key` or `unresolved-reference`. */
  rule: string;
  message: string;
}

/** A span of text, 1-based, end exclusive. */
export interface SourceRange {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** The range of a whole file's first character, for problems without a better place. */
export const FILE_START: SourceRange = { line: 1, col: 1, endLine: 1, endCol: 1 };

/** Makes a diagnostic from its parts. */
export function diagnostic(
  file: string,
  range: SourceRange,
  rule: string,
  message: string,
  severity: Diagnostic['severity'] = 'error',
): Diagnostic {
  return { file, ...range, severity, rule, message: bounded(message) };
}

/** The longest message a diagnostic carries; rules cut echoed values far shorter, this is the backstop. */
export const MAX_MESSAGE_LENGTH = 1000;

// At most MAX_MESSAGE_LENGTH characters, whatever a rule or a library put in it.
function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** `file:line:col: severity: message [rule]`, the one-line text form. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col}: ${d.severity}: ${d.message} [${d.rule}]`;
}

/** Orders diagnostics by file, then position, then message, so output is stable. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (
    a.line - b.line || a.col - b.col || a.rule.localeCompare(b.rule) || a.message.localeCompare(b.message)
  );
}
