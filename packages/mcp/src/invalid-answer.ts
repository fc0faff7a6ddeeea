// The issues of the SDK's schema check of an answer, when `error` is one (a zod error), or of the
// stdio transport's check of a JSON-RPC message, sent on as the data of an error answer.
function schemaIssues(error: unknown): Array<{ path?: unknown[]; message?: string }> | undefined {
  const checked = error as { issues?: unknown; data?: { issues?: unknown } } | null;
  const issues = checked?.issues ?? checked?.data?.issues;
  return Array.isArray(issues) && issues.length > 0 ? issues : undefined;
}

/**
 * The SDK checks each answer against the MCP schema and throws an error whose message is its
 * issues as JSON: said here in one line, each issue with its path, naming the toolset and what
 * the server was answering (`listed its tools`, `answered the call of probe`).
 *
 * @example
 * invalidAnswer('docs', 'listed its tools', zodError); // MCP server of toolset "docs" listed its tools in a form MCP does not allow: tools[1].inputSchema: ...
 */
export function invalidAnswer(toolset: string, what: string, error: unknown): Error | undefined {
  const issues = schemaIssues(error);
  if (!issues) return undefined;
  const said = issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `${path.replace(/^\./, '') || 'the answer'}: ${issue.message ?? 'is invalid'}`;
  });
  return new Error(
    `MCP server of toolset "${toolset}" ${what} in a form MCP does not allow: ${said.join('; ')}`,
  );
}
