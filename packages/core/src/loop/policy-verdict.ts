import type { ApprovalVerdict } from '../agent-config.js';
import type { ToolCall } from '../messages.js';
import type { AnyTool } from '../tool.js';
import { openedPathReading } from '../tools/path-readings.js';
import type { LoopContext } from './loop-context.js';

/** What the agent's approval policy says of a call; undefined when it leaves it to the tool. */
export function policyOf(ctx: LoopContext, call: ToolCall, tool: AnyTool): ApprovalVerdict | undefined {
  return ctx.approvalPolicy?.(call, tool, {
    messages: ctx.messages,
    // The caller's session key (`agent.run`'s memory key) when given, else the session's id.
    sessionId: ctx.options.sessionId ?? ctx.invocation?.sessionId,
    agent: ctx.agentName,
    authorOf: ctx.authorOf && ((id: string) => ctx.authorOf?.(id)),
  });
}

/** Whether a call runs, waits for a person, or is refused: the policy, else the tool's own `needsApproval`. */
export function policyVerdict(ctx: LoopContext, call: ToolCall, tool: AnyTool): 'allow' | 'ask' | 'deny' {
  const fromPolicy = policyOf(ctx, call, tool);
  if (fromPolicy) return fromPolicy;
  const needs = tool.needsApproval;
  const asks = typeof needs === 'function' ? needs(call.arguments, call) : needs === true;
  return asks ? 'ask' : 'allow';
}

/**
 * Why the approval rules refuse what a file tool really opened for its path argument `name`
 * (`real`, absolute), judged as if the call had named it: a deny rule matching it, or, for a call
 * that ran without a person's approval (`approved` false), the verdict asking for one (the allow
 * rule that let it run does not vouch for where it led). `below`: a file found under the folder
 * the argument names, which only deny rules judge. Undefined when nothing refuses it.
 */
export function pathRefusal(
  ctx: LoopContext,
  call: ToolCall,
  tool: AnyTool,
  approved: boolean,
  name: string,
  real: string,
  below: boolean,
): string | undefined {
  const paths = tool.pathArguments;
  if (!paths?.names.includes(name)) return undefined;
  const reading = openedPathReading(paths.root, real);
  if (reading === undefined) return undefined;
  const judged = { ...call, arguments: { ...call.arguments, [name]: reading } };
  // Read as opened: resolved again, the path could lead elsewhere by now.
  const verdict = policyVerdict(ctx, judged, { ...tool, pathArguments: { ...paths, resolved: true } });
  if (verdict === 'deny') return `path "${reading}" is denied by the approval policy`;
  if (verdict === 'ask' && !below && !approved)
    return `path "${call.arguments?.[name]}" leads to "${reading}", which needs approval: the rule that let the call run does not cover it`;
  return undefined;
}
