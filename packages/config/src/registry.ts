import type {
  Agent,
  AnyTool,
  MemoryProvider,
  Middleware,
  ModelDefinition,
  ModelProvider,
  SessionStore,
} from '@agentctl/core';
import type { MemoryDefinition, ToolDefinition, ToolsetDefinition } from './definitions.js';
import type { Env } from './env/interpolate.js';
import type { Secrets } from './env/secrets.js';

/** What a factory gets besides its spec: where it was written and how to resolve paths there. */
export interface FactoryContext {
  /** The project root. */
  root: string;
  /** Absolute path of the YAML file the spec comes from. */
  file: string;
  /** The environment after .env (for factories that read more than their spec). */
  env: Env;
  /** Values never to print; scrub error messages with it. */
  secrets: Secrets;
  /** Resolves a path written in the spec's file; throws when it leaves the project. */
  resolvePath(written: string): string;
  /** Reads a file written in the spec's file through the path resolver: in the project, regular, size-capped. */
  readText(written: string, what: string): string;
  /** Imports a .ts or .js module (TypeScript without a build step). */
  importModule(absolutePath: string): Promise<Record<string, unknown>>;
  /**
   * Given to an agent's middleware: what one that writes what it sees elsewhere (a log) applies
   * to each text it writes. It replaces what the agent's `redaction` middleware would and hides
   * the project's secrets.
   */
  redact?: (text: string) => string;
}

/** Makes a model provider from a normalised model definition (env already interpolated). */
export type ProviderFactory = (
  model: ModelDefinition,
  ctx: FactoryContext,
) => ModelProvider | Promise<ModelProvider>;
/** Makes a middleware from its options (camelCased, durations in ms where its schema says so). */
export type MiddlewareFactory = (
  options: Record<string, unknown>,
  ctx: FactoryContext,
) => Middleware | Promise<Middleware>;
/** Makes a memory backend from its definition (path resolved inside the project); it may also be a session store. */
export type MemoryFactory = (
  memory: MemoryDefinition,
  ctx: FactoryContext,
) => (MemoryProvider & Partial<SessionStore>) | Promise<MemoryProvider & Partial<SessionStore>>;
/** Opens a toolset (an MCP server) from its definition and lists its tools. */
export type ToolsetFactory = (
  toolset: ToolsetDefinition,
  ctx: FactoryContext,
) => Promise<{ tools: AnyTool[]; dispose(): Promise<void> }>;
/** Makes a tool from a tool definition of one implementation kind (`module`, `http`, `command`, ...). */
export type ToolKindFactory = (tool: ToolDefinition, ctx: FactoryContext) => AnyTool | Promise<AnyTool>;
/**
 * Makes a built-in tool (`- builtin: NAME`) from its options (camelCased, durations in ms, `root`
 * resolved); a toolbox entry may make several.
 */
export type BuiltinToolFactory = (
  options: Record<string, unknown>,
  ctx: FactoryContext,
) => AnyTool | AnyTool[] | Promise<AnyTool | AnyTool[]>;

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** What a plugin's own rule reports: a problem at a path inside the options it owns. */
export interface PluginProblem {
  /** Path inside the options object (empty for the options as a whole). */
  path: Array<string | number>;
  message: string;
  severity?: 'error' | 'warning';
  /** The problem is about the key at `path` (unknown, missing), so it points at the key. */
  key?: boolean;
}

/** A plugin's own check of the options written for it (after its schema passed). */
export type PluginRule = (options: Record<string, unknown>) => PluginProblem[];

/**
 * A provider's check of an agent's `output_schema` for one of its models, given the model's
 * options (normalised: camelCase): what its API would refuse (OpenAI's `strict_output`). Paths are
 * inside the schema.
 */
export type OutputSchemaRule = (schema: JsonSchema, options: Record<string, unknown>) => PluginProblem[];

/** What a plugin can do, read by rules and the compiler instead of guessing from its name. */
export interface PluginCapabilities {
  /** The provider retries failed requests itself (the `retry` middleware then does not). */
  ownsRetries?: boolean;
  /** It talks to the network (a model call, a server): `validate` never starts it. */
  needsNetwork?: boolean;
  /** A tool kind whose tools ask a person before running unless the YAML says otherwise (command, http). */
  asksApproval?: boolean;
  /** A tool kind whose tools run the project's own code on the main thread (module): their calls are watched. */
  runsProjectCode?: boolean;
  /** A provider's API refuses these model settings as written (`temperature`, `top_p`): validate says so. */
  unsupportedSettings?: readonly string[];
}

/** Everything a registration says about a plugin besides its factory. */
export interface DescriptorMeta {
  /** One line for docs and `agentctl schema`. */
  description?: string;
  /** JSON Schema of the options it takes (for a provider: the model's `options:`), as written in YAML. */
  schema?: JsonSchema;
  capabilities?: PluginCapabilities;
  /** Checks beyond the schema. */
  rules?: PluginRule[];
  /** A provider's checks of the `output_schema` of agents on its models: `validate` reports, `run` refuses. */
  outputSchemaRules?: OutputSchemaRule[];
  /**
   * A built-in tool's: the names of the tools it gives with these options (camelCased, durations
   * in ms, as its factory takes them; `${VAR}` not resolved). Without it, or when it throws, what a
   * test may expect of an agent with this built-in is known only when the test runs.
   */
  toolNames?: (options: Record<string, unknown>) => readonly string[];
}

/** One registered plugin: its name, its factory and what it says about itself. */
export interface Descriptor<F = unknown> extends DescriptorMeta {
  name: string;
  factory: F;
}

/** The kinds of plugin a registry holds. */
export type PluginKind = 'provider' | 'middleware' | 'memory' | 'toolset' | 'toolKind' | 'builtinTool';

/** The extension points of compilation: everything YAML can name, by name, with its shape. */
/** What a remote agent (`type: a2a`) is made from: its YAML fields, env already interpolated. */
export interface RemoteAgentSpec {
  name: string;
  description: string;
  url: string;
  headers: Record<string, string>;
  /** Ms one turn of the remote agent may take (`limits.timeout`); unset, the invocation's limits only. */
  timeout?: number;
}
/** Makes a remote agent of one `type` (e.g. `a2a`) that runs in a tree like any other agent. */
export type RemoteAgentFactory = (spec: RemoteAgentSpec, ctx: FactoryContext) => Agent | Promise<Agent>;
/** Reaches a remote agent without running it (`validate --connect`); throws saying why it cannot. */
export type RemoteAgentProbe = (spec: RemoteAgentSpec, ctx: FactoryContext) => Promise<void>;

export class Registry {
  readonly providers = new Map<string, ProviderFactory>();
  readonly middleware = new Map<string, MiddlewareFactory>();
  readonly memory = new Map<string, MemoryFactory>();
  readonly toolsets = new Map<string, ToolsetFactory>();
  readonly toolKinds = new Map<string, ToolKindFactory>();
  readonly builtinTools = new Map<string, BuiltinToolFactory>();
  readonly #descriptors = new Map<PluginKind, Map<string, Descriptor>>();
  readonly remoteAgents = new Map<string, RemoteAgentFactory>();
  readonly remoteProbes = new Map<string, RemoteAgentProbe>();

  /** Adds (or replaces) a model provider, e.g. `openai`. */
  registerProvider(name: string, factory: ProviderFactory, meta: DescriptorMeta = {}): this {
    this.providers.set(name, factory);
    return this.#describe('provider', name, factory, meta);
  }

  /** Adds (or replaces) a built-in middleware, e.g. `retry`. */
  registerMiddleware(name: string, factory: MiddlewareFactory, meta: DescriptorMeta = {}): this {
    this.middleware.set(name, factory);
    return this.#describe('middleware', name, factory, meta);
  }

  /** Adds (or replaces) a memory backend, e.g. `file`. */
  registerMemory(name: string, factory: MemoryFactory, meta: DescriptorMeta = {}): this {
    this.memory.set(name, factory);
    return this.#describe('memory', name, factory, meta);
  }

  /** Adds (or replaces) a toolset kind, e.g. `mcp`. */
  registerToolset(name: string, factory: ToolsetFactory, meta: DescriptorMeta = {}): this {
    this.toolsets.set(name, factory);
    return this.#describe('toolset', name, factory, meta);
  }

  /** Adds (or replaces) a tool implementation kind, e.g. `http`. */
  registerToolKind(name: string, factory: ToolKindFactory, meta: DescriptorMeta = {}): this {
    this.toolKinds.set(name, factory);
    return this.#describe('toolKind', name, factory, meta);
  }

  /** Adds (or replaces) a built-in tool, e.g. `current_time`. */
  registerBuiltinTool(name: string, factory: BuiltinToolFactory, meta: DescriptorMeta = {}): this {
    this.builtinTools.set(name, factory);
    return this.#describe('builtinTool', name, factory, meta);
  }

  /** The descriptor of one registered plugin. */
  describe(kind: PluginKind, name: string): Descriptor | undefined {
    return this.#descriptors.get(kind)?.get(name);
  }

  /** The names registered for a kind, in registration order. */
  names(kind: PluginKind): string[] {
    return [...(this.#descriptors.get(kind)?.keys() ?? [])];
  }

  #describe(kind: PluginKind, name: string, factory: unknown, meta: DescriptorMeta): this {
    const byName = this.#descriptors.get(kind) ?? new Map<string, Descriptor>();
    this.#descriptors.set(kind, byName);
    byName.set(name, { ...meta, name, factory });
    return this;
  }

  /**
   * Adds (or replaces) a remote agent type, e.g. `a2a` (the command line registers it from
   * @agentctl/server); with `probe`, `validate --connect` reaches each agent of that type.
   */
  registerRemoteAgent(type: string, factory: RemoteAgentFactory, probe?: RemoteAgentProbe): this {
    this.remoteAgents.set(type, factory);
    if (probe) this.remoteProbes.set(type, probe);
    else this.remoteProbes.delete(type);
    return this;
  }
}
