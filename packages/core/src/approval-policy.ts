import type { ApprovalPolicy, ApprovalPolicyContext, ApprovalVerdict } from './agent-config.js';
import { approvalModesOf } from './approval-mode-for.js';
import { type ApprovalRule, approvalRuleMatcher, argumentsDeclared } from './approval-rule.js';
import { CANCELLED_RESULT } from './loop/tool-pairing.js';
import type { ToolCall } from './messages.js';
import type { AnyTool } from './tool.js';
import { neverRan } from './unrun-call.js';

/** How a tool's calls are approved: never asked, always asked, or asked once per conversation. */
export type ApprovalMode = 'never' | 'always' | 'once-per-session';

/** Every approval mode, for validation and documentation. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['never', 'always', 'once-per-session'];

/** Options of {@link createApprovalPolicy}. */
export interface ApprovalPolicyOptions {
  /** Mode of tools neither listed in `tools` nor declaring their own requirement. Default `never`. */
  default?: ApprovalMode;
  /**
   * Mode per tool name (`*` wildcards allowed): an exact name wins, then the closest pattern
   * (the most characters besides `*`), then, on a tie, the mode that asks more.
   */
  tools?: Record<string, ApprovalMode>;
  /** Calls run without asking (unless a deny rule matches). */
  allow?: ApprovalRule[];
  /** Calls refused without asking; deny wins over allow. */
  deny?: ApprovalRule[];
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
  const deny = (options.deny ?? []).map((rule, i) => approvalRuleMatcher(rule, `approval rule deny[${i}]`));
  const allow = (options.allow ?? []).map((rule, i) => {
    const matches = approvalRuleMatcher(rule, `approval rule allow[${i}]`, 'allow');
    if (Object.keys(rule.args ?? {}).length === 0) return (call: ToolCall) => matches(call);
    // A rule on named arguments vouches for those only: a call carrying arguments the tool does
    // not declare (which an open schema lets through to the tool) is asked about.
    return (call: ToolCall, tool: AnyTool) => matches(call, tool) && argumentsDeclared(call, tool);
  });
  const modes = Object.entries(options.tools ?? {});
  for (const [name, mode] of modes) {
    if (!APPROVAL_MODES.includes(mode)) {
      throw new TypeError(`approval.tools.${name}: "${mode}" is not one of ${APPROVAL_MODES.join(', ')}`);
    }
  }
  const written = approvalModesOf(options.tools ?? {});
  const modeOf = (tool: AnyTool): ApprovalMode | undefined =>
    written([tool.name]) ?? (tool.needsApproval === undefined ? (options.default ?? 'never') : undefined);

  return (call: ToolCall, tool: AnyTool, context?: ApprovalPolicyContext): ApprovalVerdict | undefined => {
    if (deny.some((matches) => matches(call, tool))) return 'deny';
    if (allow.some((matches) => matches(call, tool))) return 'allow';
    switch (modeOf(tool)) {
      case 'never':
        return 'allow';
      case 'always':
        return 'ask';
      case 'once-per-session':
        return context && ranBefore(context, tool.name) ? 'allow' : 'ask';
      default:
        return undefined;
    }
  };
}

// A call that was refused, or whose arguments its schema refused before anyone was asked, never
// ran. A call cut off by a cancel may have been waiting for its approval (Ctrl-C at the prompt)
// when its result was made up, so it approved nothing either. Any other result means a call of
// the tool was allowed to run in this conversation.
// Only the asking agent's own calls count: after a transfer, another agent's tool of the same name
// (a `write_file` with another root) ran under that agent's rules, not this one's.
function ranBefore(context: ApprovalPolicyContext, toolName: string): boolean {
  const { messages, agent, authorOf } = context;
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  }
  return messages.some(
    (m) =>
      m.role === 'tool' &&
      (m.name ?? names.get(m.toolCallId ?? '')) === toolName &&
      !neverRan(m) &&
      m.content !== CANCELLED_RESULT &&
      (agent === undefined || authorOf === undefined || authorOf(m.toolCallId ?? '') === agent),
  );
}
