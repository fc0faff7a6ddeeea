import {
  type AnyTool,
  approvalRuleMatcher,
  bindApprovalRule,
  globMatcher,
  parseApprovalRule,
  shellArgumentMessage,
  type WrittenApprovalRule,
} from '@agentctl/core';
import { unknownApprovalTools, unmatchedApprovalPatterns } from '../compile/unknown-approval-tools.js';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { ToolSpec } from '../spec-types.js';
import { scriptArgs } from '../tools/command-argv.js';
import { builtinToolShapes } from './builtin-tool-shapes.js';
import { type RuleContext, validAgents } from './rule.js';

type Shape = Pick<AnyTool, 'name' | 'parameters' | 'shellArguments'>;

// The tools of an agent whose arguments are known without compiling: named tools with declared
// parameters, and the built-ins (made with default options; they do nothing until called).
function knownTools(refs: unknown[] | undefined, ctx: RuleContext): Shape[] {
  const out: Shape[] = [];
  for (const ref of refs ?? []) {
    if (typeof ref === 'string') {
      // Only a tool that passed the schema: an invalid one is reported by the schema check.
      const entry = ctx.entries.find((e) => e.kind === 'tool' && e.name === ref && e.valid);
      const spec = entry?.spec as ToolSpec | undefined;
      if (spec?.parameters)
        out.push({
          name: spec.name,
          parameters: spec.parameters,
          shellArguments: spec.command ? scriptArgs(spec.command.argv) : undefined,
        });
    } else if (ref !== null && typeof ref === 'object' && 'builtin' in ref) {
      const { builtin, options, ...inline } = ref as { builtin: unknown; options?: Record<string, unknown> };
      out.push(...builtinToolShapes(String(builtin), ctx.root, { ...options, ...inline }));
    }
  }
  return out;
}

// The names of an agent's tools when every one is known without compiling (named tools,
// built-ins, agents as tools); undefined when a module or a toolset adds names only a run sees.
function closedToolNames(refs: unknown[] | undefined, ctx: RuleContext): string[] | undefined {
  const names: string[] = [];
  for (const ref of refs ?? []) {
    if (typeof ref === 'string') names.push(ref);
    else if (ref !== null && typeof ref === 'object' && 'agent' in ref) names.push(String(ref.agent));
    else if (ref !== null && typeof ref === 'object' && 'builtin' in ref) {
      const made = knownTools([ref], ctx);
      if (made.length === 0) return undefined;
      names.push(...made.map((tool) => tool.name));
    } else return undefined;
  }
  return names;
}

/**
 * Approval rules mean what they say: each names an argument the tool has (or the tool has one
 * string argument), and none matches an argument that a shell runs as code.
 */
export function approvalRules(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const agent of validAgents(ctx)) {
    const approval = agent.spec.approval;
    if (!approval) continue;
    const names = closedToolNames(agent.spec.tools, ctx);
    for (const unknown of names ? unknownApprovalTools(approval, names) : []) {
      const key = unknown.path.length === 3 && unknown.path[1] === 'tools';
      out.push(diagnostic(agent.file, agent.locate(unknown.path, { key }), 'approval-rule', unknown.message));
    }
    for (const unmatched of names ? unmatchedApprovalPatterns(approval, names) : []) {
      const key = unmatched.path.length === 3 && unmatched.path[1] === 'tools';
      out.push(
        diagnostic(
          agent.file,
          agent.locate(unmatched.path, { key }),
          'approval-rule',
          unmatched.message,
          'warning',
        ),
      );
    }
    if (!approval.allow?.length && !approval.deny?.length) continue;
    const tools = knownTools(agent.spec.tools, ctx);
    for (const list of ['allow', 'deny'] as const) {
      for (const [i, spec] of (agent.spec.approval?.[list] ?? []).entries()) {
        const at = ['approval', list, i];
        const report = (message: string, path: Array<string | number> = at) =>
          out.push(diagnostic(agent.file, agent.locate(path), 'approval-rule', message));
        let rule: WrittenApprovalRule;
        try {
          rule = typeof spec === 'string' ? parseApprovalRule(spec) : spec;
        } catch (error) {
          report((error as Error).message);
          continue;
        }
        const match = globMatcher(rule.tool);
        const matching = tools.filter((tool) => match(tool.name));
        if (rule.value !== undefined) {
          if (matching.length === 0) continue;
          try {
            rule = bindApprovalRule(rule, matching as AnyTool[]);
          } catch (error) {
            report((error as Error).message);
            continue;
          }
        }
        for (const [name, pattern] of Object.entries(rule.args ?? {})) {
          const where = typeof spec === 'string' ? at : [...at, 'args', name];
          try {
            approvalRuleMatcher({ tool: rule.tool, args: { [name]: pattern } }, `approval.${list}[${i}]`);
          } catch (error) {
            report((error as Error).message, where);
            continue;
          }
          const shell = matching.find((tool) => tool.shellArguments?.includes(name));
          if (shell) {
            report(shellArgumentMessage(shell.name, name), where);
            continue;
          }
          if (rule.tool.includes('*')) continue;
          const properties = (matching[0]?.parameters as { properties?: Record<string, unknown> })
            ?.properties;
          const top = name.split('.')[0];
          if (properties && !Object.hasOwn(properties, top)) {
            const known = Object.keys(properties).join(', ') || 'none';
            report(`${rule.tool} has no argument \`${top}\` (its arguments: ${known})`, where);
          }
        }
      }
    }
  }
  return out;
}
