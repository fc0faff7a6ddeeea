export { parseDuration } from '@agentctl/core';
export { type ConfigAssets, configAssets } from './assets.js';
export { NO_OPTIONS_SCHEMA } from './compile/builtin-middleware-schemas.js';
export { CassetteError, readCassette, writeCassette } from './compile/cassette-file.js';
export { type CompileOptions, compileProject, type Runtime } from './compile/compile-project.js';
export { connectRemoteAgents } from './compile/connect-remote-agents.js';
export { connectToolsets } from './compile/connect-toolsets.js';
export { renderInstruction } from './compile/instruction.js';
export type { MadeMemory } from './compile/make-memory.js';
export { CATALOGUE_DATE, type ModelInfo, modelInfo, providersOfModel } from './compile/model-catalogue.js';
export { type NetworkUse, networkUses } from './compile/network-plugins.js';
export { toScriptTurn } from './compile/offline-provider.js';
export { connectMemories, type OpenedMemory, openMemory } from './compile/open-memory.js';
export type { ProviderWrapper } from './compile/resolve-model.js';
export {
  inRunCodeScope,
  type RunCodeDeadline,
  runCodeInFlight,
  watchRunCode,
} from './compile/run-code-watchdog.js';
export { createRegistry } from './create-registry.js';
export type * from './definitions.js';
export { type Diagnostic, formatDiagnostic, type SourceRange } from './diagnostic.js';
export { type DotenvProblem, dotenvProblems, parseDotenv } from './env/dotenv.js';
export { type Env, interpolate, MissingEnvError } from './env/interpolate.js';
export { scrubDeep } from './env/secrets.js';
export { agentReach, scopeDiagnostics } from './load/agent-reach.js';
export { didYouMean } from './load/did-you-mean.js';
export { type LoadedProject, type LoadOptions, loadProject } from './load/load-project.js';
export type { DataPath } from './load/node-range.js';
export type { ProjectSpecs, SpecEntry } from './load/project-specs.js';
export { normalise } from './normalise/normalise.js';
export { normaliseQueue, type QueueSettings } from './normalise/normalise-queue.js';
export { normaliseSchedule } from './normalise/normalise-schedule.js';
export { normaliseTest } from './normalise/normalise-test.js';
export { blockingAncestor, displayPath, type ResolvedPath, resolveProjectPath } from './paths.js';
export { findProjectRoot, PROJECT_FILE } from './project-root.js';
export {
  type BuiltinToolFactory,
  type Descriptor,
  type DescriptorMeta,
  type FactoryContext,
  type JsonSchema,
  type MemoryFactory,
  type MiddlewareFactory,
  type PluginCapabilities,
  type PluginKind,
  type PluginProblem,
  type PluginRule,
  type ProviderFactory,
  Registry,
  type RemoteAgentFactory,
  type RemoteAgentProbe,
  type RemoteAgentSpec,
  type ToolKindFactory,
  type ToolsetFactory,
} from './registry.js';
export { inlineModelProblem } from './rules/inline-model.js';
export { modelIdTypo } from './rules/model-id.js';
export { unknownProviderMessage } from './rules/unknown-provider.js';
export { PLUGIN_SCHEMA_ID, pluginSchema } from './schema/plugin-schema.js';
export { builtinInlineKeys, projectSchema } from './schema/project-schema.js';
export { KINDS, type Kind, loadSchema, SCHEMA_DIR } from './schemas.js';
export type * from './spec-types.js';
export type { TestDefinition, TestExpectations, TestStep } from './test-definition.js';
export { type FilesystemOptions, filesystem } from './toolbox/filesystem.js';
export { MEMORY_STATE_KEY, type MemoryNote, type MemoryToolOptions, memory } from './toolbox/memory.js';
export { type ShellOptions, shell } from './toolbox/shell.js';
export { think } from './toolbox/think.js';
export { TODO_STATE_KEY, type TodoItem, todo } from './toolbox/todo.js';
export { TOOLBOX, type ToolboxContext } from './toolbox/toolbox.js';
export { type AgentChanges, formatAgentChanges } from './watch/agent-changes.js';
export { Generation } from './watch/generation.js';
export { ModuleHost } from './watch/module-host.js';
export {
  type OnDiagnostics,
  type OnGeneration,
  type ProjectWatch,
  type WatchOptions,
  watchProject,
} from './watch/watch-project.js';
