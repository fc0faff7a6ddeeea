import { globMatcher, type ToolCall } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';

/** One `--allow` rule: calls of matching tools run without asking, optionally only on matching arguments. */
export interface AllowRule {
  /** The rule as written, for messages. */
  text: string;
  tool: (name: string) => boolean;
  /** The argument to look at (dotted for nested fields); any top-level argument when unset. */
  argument?: string;
  value?: (value: string) => boolean;
}

const TOOL = /^[A-Za-z0-9_*-]+$/;
const NAMED = /^([A-Za-z_$][\w$]*(?:\.[\w$]+)*)=(.*)$/s;

/**
 * Reads `--allow` patterns: `TOOL` (a tool name, `*` wildcards), `TOOL:GLOB` (some argument's
 * value matches GLOB) or `TOOL:NAME=GLOB` (argument NAME matches). A malformed one is a usage error.
 *
 * @example
 * parseAllowRules(['read_*', 'shell:ls *', 'fetch:url=https://example.com/*']);
 */
export function parseAllowRules(patterns: readonly string[]): AllowRule[] {
  return patterns.map((text) => {
    const colon = text.indexOf(':');
    const tool = colon < 0 ? text : text.slice(0, colon);
    if (!TOOL.test(tool)) {
      throw new CliError(
        `--allow "${text}": write TOOL, TOOL:GLOB or TOOL:ARG=GLOB, where TOOL is a tool name ("*" is a wildcard)`,
        EXIT.usage,
      );
    }
    if (colon < 0) return { text, tool: globMatcher(tool) };
    const rest = text.slice(colon + 1);
    const named = NAMED.exec(rest);
    return named
      ? { text, tool: globMatcher(tool), argument: named[1], value: globMatcher(named[2]) }
      : { text, tool: globMatcher(tool), value: globMatcher(rest) };
  });
}

/** Whether some rule lets this call run without asking. */
export function allowsCall(rules: readonly AllowRule[], call: ToolCall): boolean {
  return rules.some((rule) => {
    if (!rule.tool(call.name)) return false;
    const match = rule.value;
    if (!match) return true;
    if (rule.argument === undefined) return Object.values(call.arguments ?? {}).some((v) => match(text(v)));
    const value = lookup(call.arguments ?? {}, rule.argument);
    return value !== undefined && match(text(value));
  });
}

function lookup(args: Record<string, unknown>, path: string): unknown {
  if (path in args) return args[path];
  return path
    .split('.')
    .reduce<unknown>(
      (at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined),
      args,
    );
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
