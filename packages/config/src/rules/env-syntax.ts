import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { excerpt } from './excerpt.js';
import { COMPILED_KINDS, type RuleContext, walkStrings } from './rule.js';

// What interpolation replaces (`$$`, `${NAME}`, `${NAME:-x}`, `${NAME:?x}`), as in env/interpolate.ts.
const REFERENCE = /\$\$|\$\{[A-Za-z_][A-Za-z0-9_]*(?::[-?][^}]*)?\}/g;

/**
 * A `${` that starts no variable reference (`${API KEY}`, `${OPENAI-KEY}`, an unclosed `${X`) is
 * kept as written by run, so a typo would send the text itself as a key or a url: a warning, with
 * the spelling of a literal `${`.
 */
export function envSyntax(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of ctx.entries) {
    if (entry.parent !== undefined || !COMPILED_KINDS.has(entry.kind)) continue;
    walkStrings(entry.spec, (text, path) => {
      if (!text.includes('${')) return;
      const left = text.replace(REFERENCE, '');
      const at = left.indexOf('${');
      if (at < 0) return;
      const written = left.slice(at, left.indexOf('}', at) + 1 || at + 20);
      out.push(
        diagnostic(
          entry.file,
          entry.locate(path),
          'env-syntax',
          `\`${excerpt(written)}\` is not a variable reference (\`\${NAME}\`, \`\${NAME:-default}\`, \`\${NAME:?message}\`: a letter or _, then letters, digits or _) and is kept as written; write \`$\${\` for a literal \`\${\``,
          'warning',
        ),
      );
    });
  }
  return out;
}
