import {
  type Agent,
  type AnyTool,
  APPROVAL_RULE_GRAMMAR,
  approvalRuleMatcher,
  bindApprovalRule,
  LlmAgent,
  parseApprovalRule,
  type ToolCall,
  type WrittenApprovalRule,
  walkAgents,
} from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';

/**
 * Reads `--allow` patterns, the grammar of approval rules: `TOOL` (a tool name, `*` wildcards),
 * `TOOL:ARG=GLOB` (argument ARG matches) or `TOOL:GLOB` (the tool's only string argument
 * matches). A malformed one is a usage error.
 *
 * @example
 * parseAllowRules(['read_*', 'fetch:url=https://example.com/*']);
 */
export function parseAllowRules(patterns: readonly string[]): WrittenApprovalRule[] {
  return patterns.map((text) => {
    try {
      return parseApprovalRule(text);
    } catch {
      throw new CliError(
        `--allow "${text}": write ${APPROVAL_RULE_GRAMMAR}, where TOOL is a tool name ("*" is a wildcard)`,
        EXIT.usage,
      );
    }
  });
}

/**
 * A test of calls against `--allow` rules, each bound to the tools of the agent tree: a
 * `TOOL:GLOB` on a tool with other than one string argument is a usage error.
 */
export function allowMatcher(
  rules: readonly WrittenApprovalRule[],
  agent: Agent,
): (call: ToolCall) => boolean {
  const tools: AnyTool[] = [];
  walkAgents(agent, (each) => {
    if (each instanceof LlmAgent) tools.push(...each.tools.values());
  });
  const matchers = rules.map((rule) => {
    try {
      return approvalRuleMatcher(bindApprovalRule(rule, tools), '--allow');
    } catch (error) {
      throw new CliError(`--allow ${(error as Error).message}`, EXIT.usage);
    }
  });
  return (call) => matchers.some((matches) => matches(call));
}
