/** An MCP server that could not be started or reached: names the command (or URL) and its stderr. */
export class McpStartError extends Error {
  /** The toolset whose server failed. */
  readonly toolset: string;
  /** The command line or URL that was tried. */
  readonly target: string;
  /** The first lines the server wrote to stderr, if any. */
  readonly stderr: string;

  constructor(
    toolset: string,
    target: string,
    reason: string,
    stderr: string,
    options?: { cause?: unknown },
  ) {
    const tail = stderr.trim() ? `\nstderr:\n${indent(stderr.trim())}` : '';
    super(`MCP server of toolset "${toolset}" (${target}) did not start: ${reason}${tail}`, options);
    this.name = new.target.name;
    this.toolset = toolset;
    this.target = target;
    this.stderr = stderr;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
