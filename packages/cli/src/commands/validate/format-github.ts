import type { Diagnostic } from '@agentctl/config';

// GitHub workflow commands: data escapes % CR LF; property values also escape : and ,.
const escapeData = (text: string) =>
  text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (text: string) => escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

/** Diagnostics as GitHub Actions annotations, one workflow command per line. */
export function formatGithub(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const level = d.severity === 'error' ? 'error' : 'warning';
      const props = [
        `file=${escapeProperty(d.file)}`,
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
