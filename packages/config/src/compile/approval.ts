import type { AnyTool, ApprovalPolicy, ApprovalVerdict, Message, ToolCall } from '@agentctl/core';
import type { ApprovalMode } from '../spec-types.js';

function calledBefore(name: string, messages: readonly Message[] | undefined): boolean {
  return (messages ?? []).some((m) => m.role === 'tool' && (m as { name?: string }).name === name);
}

/**
 * The policy for an agent's `approval.tools`: always asks, never allows, once-per-session asks
 * until the conversation holds a result of that tool. Tools not listed keep their own setting.
 */
export function approvalPolicy(modes: Record<string, ApprovalMode>): ApprovalPolicy {
  return (
    call: ToolCall,
    _tool: AnyTool,
    context?: { messages?: readonly Message[] },
  ): ApprovalVerdict | undefined => {
    const mode = modes[call.name];
    if (mode === 'always') return 'ask';
    if (mode === 'never') return 'allow';
    if (mode === 'once-per-session') return calledBefore(call.name, context?.messages) ? 'allow' : 'ask';
    return undefined;
  };
}
