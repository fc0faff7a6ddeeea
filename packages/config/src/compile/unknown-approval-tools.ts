import { EXIT_LOOP_TOOL, globMatcher, parseApprovalRule, TRANSFER_TOOL } from '@agentctl/core';
import { didYouMean } from '../load/did-you-mean.js';
import type { ApprovalRuleSpec } from '../spec-types.js';

/** An agent's `approval` as written or normalised: what names a tool. */
interface NamedInApproval {
  tools?: Record<string, unknown>;
  allow?: readonly ApprovalRuleSpec[];
  deny?: readonly ApprovalRuleSpec[];
}

/** A tool name in `approval` that is no tool of the agent, with its path below the agent. */
export interface UnknownApprovalTool {
  path: Array<string | number>;
  message: string;
}

/**
 * The names an agent's `approval` writes without a `*` that are no tool of the agent: a typo in
 * `deny: [shel]` would otherwise deny nothing, and in `allow` allow nothing, without a word.
 */
export function unknownApprovalTools(
  approval: NamedInApproval | undefined,
  tools: readonly string[],
): UnknownApprovalTool[] {
  const known = new Set([...tools, TRANSFER_TOOL, EXIT_LOOP_TOOL]);
  const listed = tools.join(', ') || 'none';
  const out: UnknownApprovalTool[] = [];
  const check = (name: string, path: Array<string | number>, where: string) => {
    if (name.includes('*') || known.has(name)) return;
    out.push({
      path,
      message: `${where} names \`${name}\`, which is not a tool of this agent (tools: ${listed})${didYouMean(name, tools)}`,
    });
  };
  for (const name of Object.keys(approval?.tools ?? {}))
    check(name, ['approval', 'tools', name], 'approval.tools');
  for (const list of ['allow', 'deny'] as const) {
    for (const [i, spec] of (approval?.[list] ?? []).entries()) {
      let name: string;
      try {
        name = typeof spec === 'string' ? parseApprovalRule(spec).tool : spec.tool;
      } catch {
        continue; // a malformed rule has its own error
      }
      if (typeof name === 'string') check(name, ['approval', list, i], `approval.${list}[${i}]`);
    }
  }
  return out;
}

/**
 * The `*` patterns an agent's `approval` writes that match none of its tools: `"wirte_*": always`
 * asks about nothing, without a word. A warning, since a pattern may be written for tools to come.
 */
export function unmatchedApprovalPatterns(
  approval: NamedInApproval | undefined,
  tools: readonly string[],
): UnknownApprovalTool[] {
  // A mode pattern never reaches the runtime's own tools; a rule matches their calls too.
  const withControl = [...tools, TRANSFER_TOOL, EXIT_LOOP_TOOL];
  const listed = tools.join(', ') || 'none';
  const out: UnknownApprovalTool[] = [];
  const check = (name: string, path: Array<string | number>, where: string) => {
    if (!name.includes('*') || name === '*') return;
    const match = globMatcher(name);
    if ((path[1] === 'tools' ? tools : withControl).some((tool) => match(tool))) return;
    out.push({
      path,
      message: `${where} pattern \`${name}\` matches no tool of this agent (tools: ${listed})`,
    });
  };
  for (const name of Object.keys(approval?.tools ?? {}))
    check(name, ['approval', 'tools', name], 'approval.tools');
  for (const list of ['allow', 'deny'] as const) {
    for (const [i, spec] of (approval?.[list] ?? []).entries()) {
      let name: unknown;
      try {
        name = typeof spec === 'string' ? parseApprovalRule(spec).tool : spec.tool;
      } catch {
        continue;
      }
      if (typeof name === 'string') check(name, ['approval', list, i], `approval.${list}[${i}]`);
    }
  }
  return out;
}
