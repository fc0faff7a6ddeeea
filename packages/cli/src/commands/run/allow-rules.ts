import { didYouMean } from '@agentctl/config';
import {
  type Agent,
  type AnyTool,
  APPROVAL_RULE_GRAMMAR,
  approvalRuleMatcher,
  argumentsDeclared,
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
  const tools = toolsOfRun(agent);
  const names = [...new Set(tools.map((tool) => tool.name))];
  const matchers = rules.map((rule) => {
    // A typo would allow nothing, and the run would stop to ask about the very call it meant.
    if (!rule.tool.includes('*') && !names.includes(rule.tool)) {
      throw new CliError(
        `--allow ${rule.tool}: no agent of this run has a tool named \`${rule.tool}\` (tools: ${names.join(', ') || 'none'})${didYouMean(rule.tool, names)}`,
        EXIT.usage,
      );
    }
    try {
      const bound = bindApprovalRule(rule, tools);
      const matches = approvalRuleMatcher(bound, `--allow ${rule.tool}`, 'allow');
      if (Object.keys(bound.args ?? {}).length === 0) return (call: ToolCall) => matches(call);
      // As in the agent's own allow rules: named arguments vouch for no undeclared one. Which
      // agent's tool of that name asks is not known here: the call must pass for each of them
      // (a file tool's path is read from its own folder).
      return (call: ToolCall) =>
        matches(call) &&
        tools
          .filter((tool) => tool.name === call.name)
          .every((tool) => matches(call, tool) && argumentsDeclared(call, tool));
    } catch (error) {
      const message = (error as Error).message;
      throw new CliError(message.startsWith('--allow') ? message : `--allow ${message}`, EXIT.usage);
    }
  });
  return (call) => matchers.some((matches) => matches(call));
}

// The tools of every agent of the tree, agents used as tools and their own trees included.
function toolsOfRun(root: Agent): AnyTool[] {
  const tools: AnyTool[] = [];
  const seen = new Set<Agent>();
  const visit = (agent: Agent) =>
    walkAgents(agent, (each) => {
      if (seen.has(each)) return;
      seen.add(each);
      if (!(each instanceof LlmAgent)) return;
      for (const tool of each.tools.values()) {
        tools.push(tool);
        if (tool.agent) visit(tool.agent);
      }
    });
  visit(root);
  return tools;
}
