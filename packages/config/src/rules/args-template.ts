import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { nearest } from '../load/did-you-mean.js';
import type { ToolSpec } from '../spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries, walkStrings } from './rule.js';

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const ARG = /^args\.([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * The `{{ ... }}` of a command or HTTP tool are filled the way `run` fills them: only
 * `{{ args.NAME }}` is, so `{{ text }}` goes to the program or server as written, and an argument
 * the tool's `parameters` do not declare is filled with nothing. Both are said, as warnings.
 */
export function argsTemplate(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const tool of validEntries<ToolSpec>(ctx, 'tool')) {
    const { command, http } = tool.spec;
    if (!command && !http) continue;
    const properties = declared(tool.spec.parameters);
    const check = (text: string, path: Array<string | number>) => {
      for (const match of text.matchAll(TEMPLATE)) {
        const message = problem(match[0], match[1], properties);
        if (message) out.push(diagnostic(tool.file, tool.locate(path), 'args-template', message, 'warning'));
      }
    };
    command?.argv.forEach((arg, i) => {
      check(arg, ['command', 'argv', i]);
    });
    if (http) {
      check(http.url, ['http', 'url']);
      for (const [name, value] of Object.entries(http.headers ?? {})) check(value, ['http', 'headers', name]);
      walkStrings(http.body, check, ['http', 'body']);
    }
  }
  return out;
}

// The argument names a tool declares, or undefined when its parameters do not say (no `properties`).
function declared(parameters: Record<string, unknown> | undefined): string[] | undefined {
  const properties = parameters?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : undefined;
}

function problem(written: string, inner: string, properties: string[] | undefined): string | undefined {
  const arg = ARG.exec(inner)?.[1];
  if (arg === undefined) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner) ? inner : undefined;
    const hint = name ? `; did you mean \`{{ args.${name} }}\`?` : '';
    return `\`${excerpt(written)}\` is passed as written: only \`{{ args.NAME }}\` is filled here${hint}`;
  }
  if (properties && !properties.includes(arg)) {
    const known = properties.length > 0 ? ` (parameters: ${properties.join(', ')})` : '';
    const near = nearest(arg, properties);
    const hint = near === undefined ? '' : `; did you mean \`{{ args.${near} }}\`?`;
    return `\`${excerpt(written)}\` names no parameter of the tool, so it is filled with nothing${hint}${known}`;
  }
  return undefined;
}
