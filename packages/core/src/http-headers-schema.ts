/**
 * The JSON Schema of HTTP headers as configuration writes them (a model's `options.headers`, an
 * MCP server's, an http tool's): names that are HTTP tokens, as fetch requires: another name fails
 * every request, so the schema refuses it first. Values are not matched: they may hold secrets,
 * which a diagnostic must not print.
 */
export const HTTP_HEADERS_SCHEMA = {
  description: 'HTTP headers, named by HTTP tokens (letters, digits and -, no spaces).',
  type: 'object',
  propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
  additionalProperties: { type: 'string' },
} as const;
