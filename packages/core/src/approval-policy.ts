import type { ApprovalPolicy, ApprovalPolicyContext, ApprovalVerdict } from './agent-config.js';
import type { Message, ToolCall } from './messages.js';
import type { AnyTool } from './tool.js';

/** How a tool's calls are approved: never asked, always asked, or asked once per conversation. */
export type ApprovalMode = 'never' | 'always' | 'once-per-session';

/** Every approval mode, for validation and documentation. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['never', 'always', 'once-per-session'];

/**
 * Matches calls: `tool` is a name where `*` is a wildcard; each `args` entry matches the argument
 * of that name (dotted for nested fields) with a `*` glob or a `/regex/flags`.
 */
export interface ApprovalRule {
  tool: string;
  args?: Record<string, string>;
}

/** Options of {@link createApprovalPolicy}. */
export interface ApprovalPolicyOptions {
  /** Mode of tools neither listed in `tools` nor declaring their own requirement. Default `never`. */
  default?: ApprovalMode;
  /** Mode per tool name (`*` wildcards allowed; an exact name wins over a pattern). */
  tools?: Record<string, ApprovalMode>;
  /** Calls run without asking (unless a deny rule matches). */
  allow?: ApprovalRule[];
  /** Calls refused without asking; deny wins over allow. */
  deny?: ApprovalRule[];
}

type Matcher = (value: string) => boolean;
type CompiledRule = { tool: Matcher; args: [string, Matcher][] };

/** The kinds of tool a project declares, for {@link defaultNeedsApproval}. */
export type ToolKind = 'builtin' | 'module' | 'http' | 'command' | 'mcp' | 'agent';

/** Whether tools of a kind ask before running when nothing says otherwise: command and HTTP tools do. */
export function defaultNeedsApproval(kind: ToolKind | (string & {})): boolean {
  return kind === 'command' || kind === 'http';
}

/**
 * Builds an approval policy: deny rules first, then allow rules, then the tool's mode decides
 * whether to ask. A tool with no mode in `tools` keeps its own `needsApproval` when it declares
 * one, and otherwise gets `default`.
 *
 * @example
 * createApprovalPolicy({
 *   tools: { shell: 'always', fetch: 'once-per-session' },
 *   allow: [{ tool: 'shell', args: { command: 'ls *' } }],
 *   deny: [{ tool: '*', args: { path: '/^\\/etc\\//' } }],
 * });
 */
export function createApprovalPolicy(options: ApprovalPolicyOptions = {}): ApprovalPolicy {
  const deny = (options.deny ?? []).map((rule, i) => compileRule(rule, `deny[${i}]`));
  const allow = (options.allow ?? []).map((rule, i) => compileRule(rule, `allow[${i}]`));
  const modes = Object.entries(options.tools ?? {});
  for (const [name, mode] of modes) {
    if (!APPROVAL_MODES.includes(mode)) {
      throw new TypeError(`approval.tools.${name}: "${mode}" is not one of ${APPROVAL_MODES.join(', ')}`);
    }
  }
  const patterns = modes.map(([name, mode]) => [globMatcher(name), mode] as const);
  const exact = new Map(modes);
  const modeOf = (tool: AnyTool): ApprovalMode | undefined =>
    exact.get(tool.name) ??
    patterns.find(([match]) => match(tool.name))?.[1] ??
    (tool.needsApproval === undefined ? (options.default ?? 'never') : undefined);

  return (call: ToolCall, tool: AnyTool, context?: ApprovalPolicyContext): ApprovalVerdict | undefined => {
    if (deny.some((rule) => matches(rule, call))) return 'deny';
    if (allow.some((rule) => matches(rule, call))) return 'allow';
    switch (modeOf(tool)) {
      case 'never':
        return 'allow';
      case 'always':
        return 'ask';
      case 'once-per-session':
        return context && ranBefore(context.messages, tool.name) ? 'allow' : 'ask';
      default:
        return undefined;
    }
  };
}

function compileRule(rule: ApprovalRule, where: string): CompiledRule {
  if (typeof rule?.tool !== 'string' || rule.tool === '') {
    throw new TypeError(`approval rule ${where}: "tool" must be a tool name or pattern`);
  }
  const args = Object.entries(rule.args ?? {}).map(
    ([name, pattern]) => [name, valueMatcher(pattern, `${where}.args.${name}`)] as [string, Matcher],
  );
  return { tool: globMatcher(rule.tool), args };
}

function matches(rule: CompiledRule, call: ToolCall): boolean {
  if (!rule.tool(call.name)) return false;
  return rule.args.every(([name, match]) => {
    const value = argument(call.arguments, name);
    return value !== undefined && match(value);
  });
}

function argument(args: Record<string, unknown>, name: string): string | undefined {
  let value: unknown = name in args ? args[name] : undefined;
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((at, key) => {
      return typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
    }, args);
  }
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function valueMatcher(pattern: string, where: string): Matcher {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (!regex) return globMatcher(pattern);
  try {
    const compiled = new RegExp(regex[1], regex[2]);
    return (value) => compiled.test(value);
  } catch (error) {
    throw new TypeError(
      `approval rule ${where}: invalid regular expression ${pattern}: ${(error as Error).message}`,
    );
  }
}

/** A test of names against a pattern where `*` stands for any run of characters. */
export function globMatcher(pattern: string): Matcher {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const compiled = new RegExp(`^${source}$`, 's');
  return (value) => compiled.test(value);
}

// A call that was refused has a result starting with this text (see tool-execution.ts); any
// other result means the call was allowed to run, so the tool was approved in this conversation.
const REFUSED = 'The call was not run:';

function ranBefore(messages: readonly Message[], toolName: string): boolean {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  }
  return messages.some(
    (m) =>
      m.role === 'tool' &&
      (m.name ?? names.get(m.toolCallId ?? '')) === toolName &&
      !(m.isError && (m.content ?? '').startsWith(REFUSED)),
  );
}
