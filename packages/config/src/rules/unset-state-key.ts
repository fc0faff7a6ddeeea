import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { MiddlewareSpec, ToolSpec } from '../spec-types.js';
import { instructionFileText, rangeIn } from './instruction-file-text.js';
import { type RuleContext, validAgents, validEntries } from './rule.js';

const STATE_TEMPLATE = /\{\{\s*state\.((?:app:|user:)?[A-Za-z_][A-Za-z0-9_-]*)[^{}]*\}\}/g;

/**
 * A `{{ state.KEY }}` in an instruction that nothing in the project sets (no agent's `output_key`,
 * no module tool or middleware, which may write any key) renders empty: a warning.
 */
export function unsetStateKey(ctx: RuleContext): Diagnostic[] {
  const agents = validAgents(ctx);
  // Code gets the session state and may write any key: then no key can be called unset.
  const code =
    validEntries<ToolSpec>(ctx, 'tool').some((t) => t.spec.module) ||
    validEntries<MiddlewareSpec>(ctx, 'middleware').some((m) => m.spec.module) ||
    agents.some((a) => a.spec.tools?.some((t) => typeof t === 'object' && 'module' in t));
  if (code) return [];
  const set = new Set(agents.flatMap((a) => (a.spec.output_key ? [a.spec.output_key] : [])));
  const out: Diagnostic[] = [];
  for (const agent of agents) {
    const { instruction, instruction_file: written } = agent.spec;
    // An instruction file's keys are reported at their place in that file.
    const read =
      instruction === undefined && written !== undefined
        ? instructionFileText(ctx, agent.absFile, written)
        : undefined;
    const text = instruction ?? read?.text;
    if (text === undefined) continue;
    const seen = new Set<string>();
    for (const match of text.matchAll(STATE_TEMPLATE)) {
      const key = match[1];
      // `app:`/`user:` keys outlive a session: an earlier run (of any project) may have set them.
      if (seen.has(key) || set.has(key) || key.startsWith('app:') || key.startsWith('user:')) continue;
      seen.add(key);
      out.push(
        diagnostic(
          read ? read.file : agent.file,
          read ? rangeIn(read.text, match.index, match[0].length) : agent.locate(['instruction']),
          'unset-state-key',
          `\`{{ state.${key} }}\` renders empty: no agent has \`output_key: ${key}\` and no module tool sets it`,
          'warning',
        ),
      );
    }
  }
  return out;
}
