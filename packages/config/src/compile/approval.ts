import {
  type AnyTool,
  type ApprovalPolicy,
  type ApprovalRule,
  approvalModeFor,
  bindApprovalRule,
  createApprovalPolicy,
  EXIT_LOOP_TOOL,
  parseApprovalRule,
  TRANSFER_TOOL,
} from '@agentctl/core';
import type { ApprovalDefinition, ToolsetDefinition } from '../definitions.js';
import type { ApprovalMode, ApprovalRuleSpec } from '../spec-types.js';
import { unknownApprovalTools } from './unknown-approval-tools.js';

// Modes declared where a tool comes from (a toolset's `approval`), kept beside the tool object so
// that every agent using the tool gets the mode without the registry's types knowing about it.
const declared = new WeakMap<AnyTool, ApprovalMode>();

/** Records the approval mode a toolset declares for one of its tools. */
export function declareApprovalMode(tool: AnyTool, mode: ApprovalMode): void {
  declared.set(tool, mode);
}

/**
 * The mode a toolset's `approval` gives one of its tools: the single mode, or the entry for the
 * name the model sees, then the server's own name, then the closest matching `*` pattern.
 */
export function toolsetApprovalMode(spec: ToolsetDefinition, exposed: string): ApprovalMode | undefined {
  const approval = spec.approval;
  if (approval === undefined || typeof approval === 'string') return approval;
  const original =
    spec.prefix && exposed.startsWith(spec.prefix) ? exposed.slice(spec.prefix.length) : exposed;
  return approvalModeFor(approval, [exposed, original]);
}

/**
 * The approval policy of one agent: its deny rules, then its allow rules, then the mode of the
 * tool (the agent's `approval.tools`, else the toolset's `approval`, else the tool's own
 * `needsApproval`). Undefined when nothing is declared, so each tool keeps its own setting.
 */
export function agentApprovalPolicy(
  approval: ApprovalDefinition,
  tools: readonly AnyTool[],
): ApprovalPolicy | undefined {
  const modes: Record<string, ApprovalMode> = {};
  // The runtime's own tools (a transfer, exit_loop) are no tool of the list, but a mode written
  // for one by name holds; a `*` pattern is not read as meaning them.
  for (const name of [TRANSFER_TOOL, EXIT_LOOP_TOOL])
    if (Object.hasOwn(approval.tools, name)) modes[name] = approval.tools[name];
  for (const tool of tools) {
    const mode = approvalModeFor(approval.tools, [tool.name]) ?? declared.get(tool);
    if (mode) modes[tool.name] = mode;
  }
  const [unknown] = unknownApprovalTools(
    approval,
    tools.map((tool) => tool.name),
  );
  if (unknown) throw new TypeError(unknown.message);
  const allow = approval.allow.map((spec, i) => rule(spec, tools, `approval.allow[${i}]`));
  const deny = approval.deny.map((spec, i) => rule(spec, tools, `approval.deny[${i}]`));
  if (Object.keys(modes).length === 0 && allow.length === 0 && deny.length === 0) return undefined;
  return createApprovalPolicy({ tools: modes, allow, deny });
}

function rule(spec: ApprovalRuleSpec, tools: readonly AnyTool[], where: string): ApprovalRule {
  try {
    return bindApprovalRule(typeof spec === 'string' ? parseApprovalRule(spec) : spec, tools);
  } catch (error) {
    throw new TypeError(`${where}: ${(error as Error).message}`);
  }
}
