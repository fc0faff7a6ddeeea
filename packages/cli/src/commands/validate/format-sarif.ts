import type { Diagnostic } from '@agentctl/config';
import { VERSION } from '../../program.js';

/** Diagnostics as a SARIF 2.1.0 log, for code-scanning tools. */
export function formatSarif(diagnostics: readonly Diagnostic[], rootUri: string): string {
  const rules = [...new Set(diagnostics.map((d) => d.rule))].sort();
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'agentctl',
            version: VERSION,
            informationUri: 'https://github.com/agentctl/agentctl',
            rules: rules.map((id) => ({ id, shortDescription: { text: id.replaceAll('-', ' ') } })),
          },
        },
        originalUriBaseIds: { PROJECTROOT: { uri: rootUri.endsWith('/') ? rootUri : `${rootUri}/` } },
        results: diagnostics.map((d) => ({
          ruleId: d.rule,
          ruleIndex: rules.indexOf(d.rule),
          level: d.severity === 'error' ? 'error' : 'warning',
          message: { text: d.message },
          locations: [
            {
              physicalLocation: {
                // Per segment, so `#`, `?` and a `:` that would read as a scheme stay part of the path.
                artifactLocation: {
                  uri: d.file.split('/').map(encodeURIComponent).join('/'),
                  uriBaseId: 'PROJECTROOT',
                },
                region: { startLine: d.line, startColumn: d.col, endLine: d.endLine, endColumn: d.endCol },
              },
            },
          ],
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
