import { readFile } from 'node:fs/promises';
import { type AgentConfig, createAgent, type LlmAgent } from '@agentctl/core';
import type { SpecEntry } from '../load/project-specs.js';
import type { AgentSpec } from '../spec-types.js';
import { approvalPolicy } from './approval.js';
import type { Compiler } from './compiler.js';
import { parseDuration } from './duration.js';
import { renderInstruction } from './instruction.js';
import { resolveMemory } from './resolve-memory.js';
import { resolveMiddleware } from './resolve-middleware.js';
import { resolveModel } from './resolve-model.js';
import { resolveTools } from './resolve-tools.js';

/**
 * Builds one agent from its spec: the single place YAML becomes a runtime agent, so sub-agents,
 * agent tools and workflows will all come through here.
 */
export async function buildAgent(
  entry: SpecEntry<AgentSpec>,
  compiler: Compiler,
): Promise<LlmAgent | undefined> {
  const spec = compiler.resolved(entry);
  if (!spec) return undefined;
  if ((spec.type ?? 'llm') !== 'llm') {
    compiler.error(
      entry,
      ['type'],
      'unsupported',
      `workflow agents (type: ${spec.type}) are not supported yet`,
    );
    return undefined;
  }
  if (spec.sub_agents && spec.sub_agents.length > 0) {
    compiler.error(entry, ['sub_agents'], 'unsupported', 'sub-agents are not supported yet', { key: true });
    return undefined;
  }
  const model = await resolveModel(entry, compiler);
  const tools = await resolveTools(entry, spec, compiler);
  const memory = await resolveMemory(entry, spec, compiler);
  const middleware = model ? await resolveMiddleware(entry, spec, model.spec, compiler) : undefined;
  let template = spec.instruction;
  if (spec.instruction_file !== undefined) {
    const file = spec.instruction_file;
    template = await compiler.attempt(entry, ['instruction_file'], 'file-path', async () =>
      readFile(compiler.factoryContext(entry).resolvePath(file), 'utf8'),
    );
    if (template === undefined) return undefined;
  }
  if (!model || !tools || !middleware || memory === false) return undefined;
  const limits = await compiler.attempt(entry, ['limits'], 'schema', () => ({
    maxIterations: spec.limits?.max_iterations,
    maxTokens: spec.limits?.max_tokens,
    timeout: parseDuration(spec.limits?.timeout),
    toolTimeout: parseDuration(spec.limits?.tool_timeout),
  }));
  if (!limits) return undefined;
  const text = template;
  const config: AgentConfig = {
    name: spec.name,
    description: spec.description,
    provider: model.provider,
    model: model.spec.model,
    pricing: model.pricing,
    instruction: text === undefined ? undefined : (ctx) => renderInstruction(text, ctx),
    tools,
    middleware,
    memory: memory ?? undefined,
    approvalPolicy: spec.approval?.tools ? approvalPolicy(spec.approval.tools) : undefined,
    outputSchema: spec.output_schema,
    ...limits,
    temperature: spec.temperature ?? model.spec.temperature,
    topP: spec.top_p ?? model.spec.top_p,
    maxOutputTokens: spec.max_output_tokens ?? model.spec.max_output_tokens,
    options: model.spec.options,
  };
  return compiler.attempt(entry, ['name'], 'compile', () => createAgent(config));
}
