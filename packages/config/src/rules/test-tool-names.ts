import { EXIT_LOOP_TOOL, TRANSFER_TOOL } from '@agentctl/core';
import { type Diagnostic, diagnostic } from '../diagnostic.js';
import { callIdsOf } from '../load/check-offline-files.js';
import { didYouMean } from '../load/did-you-mean.js';
import type { IndexedEntry } from '../load/index-documents.js';
import { normaliseToolRef } from '../normalise/normalise-agent.js';
import type { Registry } from '../registry.js';
import type { AgentSpec, ModelSpec, ToolRefSpec } from '../spec-types.js';
import type { TestSpec } from '../test-spec-types.js';
import { excerpt } from './excerpt.js';
import { type RuleContext, validEntries } from './rule.js';

/** The agents a test's tree runs and the tool names they have, when every name is known. */
interface Tree {
  agents: Set<string>;
  /** Undefined when a toolset or an unchecked module gives names known only at run time. */
  tools: Set<string> | undefined;
}

/**
 * A test's `tool_calls`, `pending`, `approve`, `deny`, `answer`, `transfer` and the agents of a
 * `model:` mapping name tools and agents of its agent's tree: a name the tree cannot produce is a validate error, not a failed run. Tool
 * names are checked only when all are known without running anything (no toolset, module
 * exports read, built-ins that say what they give with their options); `approve`, `deny` and
 * `answer` may also name a call id, so a name that could be one (a scripted model's `id:`, inline
 * or in its script file, any when a script file could not be read, or one with a digit, as
 * generated ids have) is left to the run.
 */
export function testToolNames(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const scriptIds = scriptedCallIds(ctx);
  const trees = new Map<string, Tree>();
  for (const test of validEntries<TestSpec>(ctx, 'test')) {
    const spec = test.spec;
    if (!ctx.specs.agent.has(spec.agent)) continue; // test-documents reports it
    const tree = trees.get(spec.agent) ?? treeOf(ctx, spec.agent);
    trees.set(spec.agent, tree);
    const { agents, tools } = tree;
    const report = (path: Array<string | number>, message: string, key = false) =>
      out.push(diagnostic(test.file, test.locate(path, { key }), 'test-tool-names', message));
    const tool = (name: string, path: Array<string | number>, key = false, callId = false) => {
      if (!tools || tools.has(name)) return;
      if (callId && (!scriptIds || scriptIds.has(name) || /\d/.test(name))) return;
      const of = callId ? ' and no scripted call has that id' : '';
      report(
        path,
        `agent \`${excerpt(spec.agent)}\`'s tree has no tool \`${excerpt(name)}\`${of}${didYouMean(name, tools)}`,
        key,
      );
    };
    // A model given to an agent the test never runs would change nothing: a typo, or the wrong test.
    if (spec.model !== undefined && typeof spec.model !== 'string')
      for (const name of Object.keys(spec.model))
        if (ctx.specs.agent.has(name) && !agents.has(name))
          report(
            ['model', name],
            `agent \`${excerpt(name)}\` is not in agent \`${excerpt(spec.agent)}\`'s tree, so the model given to it would be used by no agent of this test${didYouMean(name, agents)}`,
            true,
          );
    spec.turns.forEach((turn, i) => {
      turn.approve?.forEach((name, j) => {
        tool(name, ['turns', i, 'approve', j], false, true);
      });
      turn.deny?.forEach((name, j) => {
        tool(name, ['turns', i, 'deny', j], false, true);
      });
      for (const name of Object.keys(turn.answer ?? {})) tool(name, ['turns', i, 'answer', name], true, true);
      const expect = turn.expect;
      if (!expect) return;
      const at = (...path: Array<string | number>) => ['turns', i, 'expect', ...path];
      expect.tool_calls?.forEach((call, j) => {
        tool(call.name, at('tool_calls', j, 'name'));
      });
      expect.pending?.forEach((name, j) => {
        tool(name, at('pending', j), false, true);
      });
      const to = expect.transfer;
      // An agent the project does not define is test-documents' error.
      if (to !== undefined && ctx.specs.agent.has(to) && !agents.has(to))
        report(
          at('transfer'),
          `agent \`${excerpt(to)}\` is not in agent \`${excerpt(spec.agent)}\`'s tree, so nothing can transfer to it${didYouMean(to, agents)}`,
        );
    });
  }
  return out;
}

// Every agent reached through sub-agents and agents as tools (whose events the test sees), and the
// tools they have: named, built-in, agents, module exports, and those the runtime adds.
function treeOf(ctx: RuleContext, root: string): Tree {
  const agents = new Set<string>();
  let tools: Set<string> | undefined = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (agents.has(name)) continue;
    const entry = ctx.specs.agent.get(name) as (IndexedEntry & { spec: AgentSpec }) | undefined;
    if (!entry) continue;
    agents.add(name);
    const spec = entry.spec;
    if (spec.type === 'a2a') tools = undefined; // a remote agent's calls are its own
    if (spec.type === 'loop') tools?.add(EXIT_LOOP_TOOL);
    for (const sub of spec.sub_agents ?? []) {
      tools?.add(TRANSFER_TOOL);
      pending.push(typeof sub === 'string' ? sub : sub.name);
    }
    spec.tools?.forEach((tool, i) => {
      if (typeof tool === 'string') tools?.add(tool);
      else if ('builtin' in tool) {
        const names = builtinToolNames(ctx.registry, tool);
        if (names) for (const n of names) tools?.add(n);
        else tools = undefined;
      } else if ('agent' in tool) {
        tools?.add(tool.agent);
        pending.push(tool.agent);
      } else if ('module' in tool) {
        const names = ctx.moduleTools?.get(entry)?.get(i);
        if (names) for (const n of names) tools?.add(n);
        else tools = undefined;
      } else tools = undefined;
    });
  }
  return { agents, tools };
}

// The tools a built-in gives with the options written (`read_only` takes some away); undefined when
// its registration does not say, or cannot with these options (a duration from ${VAR}, say).
function builtinToolNames(registry: Registry | undefined, tool: ToolRefSpec): readonly string[] | undefined {
  if (!registry) return undefined;
  try {
    const ref = normaliseToolRef(tool, registry);
    if (ref.kind !== 'builtin') return undefined;
    return registry.describe('builtinTool', ref.name)?.toolNames?.(ref.options);
  } catch {
    return undefined;
  }
}

// The call ids scripted offline models give, which `approve:` and the others may name, their
// script files' too; undefined when a script file could not be read (a ${VAR} path, a problem the
// offline-file or file-path rule reports).
function scriptedCallIds(ctx: RuleContext): Set<string> | undefined {
  const ids = new Set<string>();
  for (const model of validEntries<ModelSpec>(ctx, 'model')) {
    const { provider, model: modelId, script } = model.spec;
    if (script === undefined) continue;
    if (typeof script !== 'string') for (const callId of callIdsOf(script)) ids.add(callId);
    else if (provider === 'offline' && modelId === 'script') {
      const read = ctx.scriptCallIds?.get(model);
      if (!read) return undefined;
      for (const callId of read) ids.add(callId);
    }
  }
  return ids;
}
