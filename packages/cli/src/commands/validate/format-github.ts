import { isAbsolute, join, relative, sep } from 'node:path';
import type { Diagnostic } from '@agentctl/config';

// GitHub workflow commands: data escapes % CR LF; property values also escape : and ,.
const escapeData = (text: string) =>
  text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (text: string) => escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

/**
 * Diagnostics as GitHub Actions annotations, one workflow command per line. GitHub places an
 * annotation by its path from the repository root (`GITHUB_WORKSPACE`), so paths are written from
 * `base`, not from the project folder, which may be a subfolder of the repository.
 */
export function formatGithub(diagnostics: readonly Diagnostic[], root: string, base: string): string {
  const path = (file: string) => {
    const fromBase = relative(base, join(root, file));
    return fromBase.startsWith('..') || isAbsolute(fromBase) ? file : fromBase.split(sep).join('/');
  };
  return diagnostics
    .map((d) => {
      const level = d.severity === 'error' ? 'error' : 'warning';
      const props = [
        `file=${escapeProperty(path(d.file))}`,
        `line=${d.line}`,
        `col=${d.col}`,
        `endLine=${d.endLine}`,
        `endColumn=${d.endCol}`,
        `title=${escapeProperty(`agentctl ${d.rule}`)}`,
      ].join(',');
      return `::${level} ${props}::${escapeData(d.message)}\n`;
    })
    .join('');
}
