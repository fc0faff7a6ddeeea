import {
  type Agent,
  type AgentConfig,
  createAgent,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
} from '@agentctl/core';
import type { AgentDefinition } from '../definitions.js';
import type { SpecEntry } from '../load/project-specs.js';
import type { RemoteAgentSpec } from '../registry.js';
import { outputSchemaMessage, outputSchemaProblems } from '../rules/provider-output-schema.js';
import type { AgentSpec } from '../spec-types.js';
import { agentApprovalPolicy } from './approval.js';
import type { Compiler } from './compiler.js';
import { renderInstruction } from './instruction.js';
import { resolveMemory } from './resolve-memory.js';
import { resolveMiddleware } from './resolve-middleware.js';
import { modelRefOf, resolveModel } from './resolve-model.js';
import { resolveTools } from './resolve-tools.js';

/**
 * Builds one agent from its spec: the single place YAML becomes a runtime agent. LLM agents,
 * workflow agents (sequential, parallel, loop), their sub-agents and agents used as tools all come
 * through here, each built once per compilation.
 */
export function buildAgent(entry: SpecEntry<AgentSpec>, compiler: Compiler): Promise<Agent | undefined> {
  let pending = compiler.agents.get(entry.name);
  if (!pending) {
    pending = build(entry, compiler);
    compiler.agents.set(entry.name, pending);
  }
  return pending;
}

async function build(entry: SpecEntry<AgentSpec>, compiler: Compiler): Promise<Agent | undefined> {
  const spec = compiler.definition('agent', entry);
  if (!spec) return undefined;
  const subAgents = await buildSubAgents(entry, spec, compiler);
  if (!subAgents) return undefined;
  const type = spec.type;
  if (type === 'a2a') return buildRemote(entry, spec, compiler);
  if (type !== 'llm') {
    // A workflow that starts a run keeps its session where its `memory` (or the project's default) says.
    const memory = await resolveMemory(entry, spec, compiler);
    if (memory === false) return undefined;
    const base = { name: spec.name, description: spec.description, subAgents, memory };
    return compiler.attempt(entry, ['name'], 'compile', () =>
      type === 'sequential'
        ? new SequentialAgent(base)
        : type === 'parallel'
          ? new ParallelAgent(base)
          : new LoopAgent({ ...base, maxIterations: spec.maxIterations }),
    );
  }
  const model = await resolveModel(entry, spec, compiler);
  if (model && !outputSchemaAccepted(entry, spec, compiler)) return undefined;
  const tools = await resolveTools(entry, spec, compiler);
  const memory = await resolveMemory(entry, spec, compiler);
  const resolved = model
    ? await resolveMiddleware(entry, spec, model.definition, model.provider, compiler)
    : undefined;
  let template = spec.instruction;
  if (spec.instructionFile !== undefined) {
    const file = spec.instructionFile;
    template = await compiler.attempt(entry, ['instruction_file'], 'file-path', () =>
      compiler.factoryContext(entry).readText(file, 'instruction file'),
    );
    if (template === undefined) return undefined;
  }
  if (!model || !tools || !resolved || memory === false) return undefined;
  const approval = await compiler.attempt(entry, ['approval'], 'approval', () => ({
    policy: agentApprovalPolicy(spec.approval, tools),
  }));
  if (!approval) return undefined;
  const limits = {
    maxIterations: spec.limits.maxIterations,
    maxTokens: spec.limits.maxTokens,
    timeout: spec.limits.timeoutMs,
    toolTimeout: spec.limits.toolTimeoutMs,
    maxToolResultBytes: spec.limits.maxToolResultBytes,
  };
  const text = template;
  const config: AgentConfig = {
    name: spec.name,
    description: spec.description,
    provider: resolved.provider,
    model: model.definition.model,
    pricing: model.pricing,
    instruction: text === undefined ? undefined : (ctx) => renderInstruction(text, ctx),
    tools,
    middleware: resolved.middleware,
    // Read when a call is recorded: the secrets of models compiled after this agent count too.
    redactCalls: (text) => compiler.secrets.scrub(text),
    hiddenValues: compiler.secrets,
    memory: memory ?? undefined,
    approvalPolicy: approval.policy,
    outputSchema: spec.outputSchema,
    ...limits,
    temperature: spec.temperature ?? model.definition.temperature,
    topP: spec.topP ?? model.definition.topP,
    maxOutputTokens: spec.maxOutputTokens ?? model.definition.maxOutputTokens,
    subAgents,
    outputKey: spec.outputKey,
    disallowTransferToParent: spec.disallowTransferToParent,
    disallowTransferToPeers: spec.disallowTransferToPeers,
    maxHistory: spec.maxHistory,
  };
  return compiler.attempt(entry, ['name'], 'compile', () => createAgent(config));
}

// A remote agent comes from the registry, so config needs no protocol client of its own.
// The agent's output_schema against what the provider of the model it runs on accepts (its own, or
// the one `--model` gives): the API would refuse it at the first call, after a session was written.
function outputSchemaAccepted(entry: SpecEntry, spec: AgentDefinition, compiler: Compiler): boolean {
  if (!spec.outputSchema) return true;
  const problems = outputSchemaProblems(
    modelRefOf(spec, compiler),
    spec.outputSchema,
    compiler.specs,
    compiler.registry,
  );
  const errors = problems.filter((problem) => problem.severity !== 'warning');
  for (const problem of errors)
    compiler.error(
      entry,
      ['output_schema', ...problem.path],
      'output-schema-provider',
      outputSchemaMessage(problem),
      {
        key: problem.key,
      },
    );
  return errors.length === 0;
}

async function buildRemote(
  entry: SpecEntry<AgentSpec>,
  spec: AgentDefinition,
  compiler: Compiler,
): Promise<Agent | undefined> {
  const factory = compiler.registry.remoteAgents.get('a2a');
  if (!factory) {
    compiler.error(entry, ['type'], 'compile', 'no `a2a` remote agent type is registered');
    return undefined;
  }
  return compiler.attempt(entry, ['url'], 'compile', () =>
    factory(remoteSpecOf(spec), compiler.factoryContext(entry)),
  );
}

/** What a remote agent's factory (and its probe) is given from the agent's definition. */
export function remoteSpecOf(spec: AgentDefinition): RemoteAgentSpec {
  return {
    name: spec.name,
    description: spec.description ?? '',
    url: spec.url ?? '',
    headers: spec.headers,
    timeout: spec.limits.timeoutMs,
  };
}

async function buildSubAgents(
  entry: SpecEntry<AgentSpec>,
  spec: AgentDefinition,
  compiler: Compiler,
): Promise<Agent[] | undefined> {
  const out: Agent[] = [];
  let ok = true;
  for (const [i, name] of spec.subAgents.entries()) {
    const child = compiler.specs.agent.get(name) as SpecEntry<AgentSpec> | undefined;
    if (!child) {
      compiler.error(entry, ['sub_agents', i], 'unresolved-reference', `agent \`${name}\` is not defined`);
      ok = false;
      continue;
    }
    const built = await buildAgent(child, compiler);
    if (built) out.push(built);
    else ok = false;
  }
  return ok ? out : undefined;
}
