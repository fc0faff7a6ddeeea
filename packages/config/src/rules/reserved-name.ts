import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { RuleContext } from './rule.js';

/** Names the runtime uses itself: an agent named `user` would be confused with the human. */
export const RESERVED_AGENT_NAMES: readonly string[] = ['user'];

/** No agent may take a reserved name. */
export function reservedName(ctx: RuleContext): Diagnostic[] {
  return ctx.entries
    .filter((e) => e.kind === 'agent' && RESERVED_AGENT_NAMES.includes(e.name))
    .map((e) =>
      diagnostic(
        e.file,
        e.range,
        'reserved-name',
        `\`${e.name}\` is reserved for the human in a conversation; choose another agent name`,
      ),
    );
}
