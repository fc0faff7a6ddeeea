import type { AnyTool } from '@agentctl/core';
import { type Secrets, scrubDeep } from './secrets.js';

/**
 * The tool with the project's secrets scrubbed from its results and error messages. Every tool
 * a project compiles goes through this, so a secret a server or program echoes back reaches no
 * event, session, export, log or cassette: they are all made from tool results.
 */
export function scrubbedTool<T extends AnyTool>(tool: T, secrets: Secrets): T {
  const scrub = (text: string) => secrets.scrub(text);
  return {
    ...tool,
    async execute(args, context) {
      try {
        const result = await tool.execute(args, context);
        return secrets.size === 0 ? result : scrubDeep(result, scrub);
      } catch (error) {
        if (secrets.size > 0 && error instanceof Error) error.message = scrub(error.message);
        throw error;
      }
    },
  };
}
