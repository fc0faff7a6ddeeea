import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { envInName } from '../env/env-in-name.js';
import { didYouMean } from '../load/did-you-mean.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validAgents } from './rule.js';

/** Every `- builtin: NAME` tool is registered (asked of the registry), with a suggestion when not. */
export function unknownBuiltin(ctx: RuleContext): Diagnostic[] {
  if (!ctx.registry) return [];
  const known = ctx.registry.names('builtinTool');
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    agent.spec.tools?.forEach((tool, i) => {
      if (typeof tool !== 'object' || !('builtin' in tool) || known.includes(tool.builtin)) return;
      const list = known.length > 0 ? ` (built-in tools: ${known.join(', ')})` : ' (none registered)';
      out.push(
        diagnostic(
          agent.file,
          agent.locate(['tools', i, 'builtin']),
          'unknown-builtin',
          `built-in tool \`${excerpt(tool.builtin)}\` is not available${envInName(tool.builtin) || `${didYouMean(tool.builtin, known)}${list}`}`,
        ),
      );
    });
  }
  return out;
}
