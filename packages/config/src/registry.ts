import type { Agent, AnyTool, MemoryProvider, Middleware, ModelProvider, SessionStore } from '@agentctl/core';
import type { Env } from './env/interpolate.js';
import type { Secrets } from './env/secrets.js';
import type { MemorySpec, ModelSpec, ToolSpec, ToolsetSpec } from './spec-types.js';

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
  /** Imports a .ts or .js module (TypeScript without a build step). */
  importModule(absolutePath: string): Promise<Record<string, unknown>>;
}

/** Makes a model provider from a model spec (env already interpolated). */
export type ProviderFactory = (
  model: ModelSpec,
  ctx: FactoryContext,
) => ModelProvider | Promise<ModelProvider>;
/** Makes a middleware from its options (snake_case keys, as written). */
export type MiddlewareFactory = (
  options: Record<string, unknown>,
  ctx: FactoryContext,
) => Middleware | Promise<Middleware>;
/** Makes a memory backend; it may also be a session store. */
export type MemoryFactory = (
  spec: MemorySpec,
  ctx: FactoryContext,
) => (MemoryProvider & Partial<SessionStore>) | Promise<MemoryProvider & Partial<SessionStore>>;
/** Opens a toolset (an MCP server) and lists its tools. */
export type ToolsetFactory = (
  spec: ToolsetSpec,
  ctx: FactoryContext,
) => Promise<{ tools: AnyTool[]; dispose(): Promise<void> }>;
/** Makes a tool from a tool spec of one implementation kind (`module`, `http`, `command`, ...). */
export type ToolKindFactory = (spec: ToolSpec, ctx: FactoryContext) => AnyTool | Promise<AnyTool>;
/** Makes a built-in tool (`- builtin: NAME`) from its options; a toolbox entry may make several. */
export type BuiltinToolFactory = (
  options: Record<string, unknown>,
  ctx: FactoryContext,
) => AnyTool | AnyTool[] | Promise<AnyTool | AnyTool[]>;

/** What a remote agent (`type: a2a`) is made from: its YAML fields, env already interpolated. */
export interface RemoteAgentSpec {
  name: string;
  description: string;
  url: string;
  headers: Record<string, string>;
}
/** Makes a remote agent of one `type` (e.g. `a2a`) that runs in a tree like any other agent. */
export type RemoteAgentFactory = (spec: RemoteAgentSpec, ctx: FactoryContext) => Agent | Promise<Agent>;

/** The extension points of compilation: everything YAML can name, by name. */
export class Registry {
  readonly providers = new Map<string, ProviderFactory>();
  readonly middleware = new Map<string, MiddlewareFactory>();
  readonly memory = new Map<string, MemoryFactory>();
  readonly toolsets = new Map<string, ToolsetFactory>();
  readonly toolKinds = new Map<string, ToolKindFactory>();
  readonly builtinTools = new Map<string, BuiltinToolFactory>();
  readonly remoteAgents = new Map<string, RemoteAgentFactory>();

  /** Adds (or replaces) a model provider, e.g. `openai`. */
  registerProvider(name: string, factory: ProviderFactory): this {
    this.providers.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a built-in middleware, e.g. `retry`. */
  registerMiddleware(name: string, factory: MiddlewareFactory): this {
    this.middleware.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a memory backend, e.g. `file`. */
  registerMemory(name: string, factory: MemoryFactory): this {
    this.memory.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a toolset kind, e.g. `mcp`. */
  registerToolset(name: string, factory: ToolsetFactory): this {
    this.toolsets.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a tool implementation kind, e.g. `http`. */
  registerToolKind(name: string, factory: ToolKindFactory): this {
    this.toolKinds.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a built-in tool, e.g. `current_time`. */
  registerBuiltinTool(name: string, factory: BuiltinToolFactory): this {
    this.builtinTools.set(name, factory);
    return this;
  }

  /** Adds (or replaces) a remote agent type, e.g. `a2a` (the command line registers it from @agentctl/server). */
  registerRemoteAgent(type: string, factory: RemoteAgentFactory): this {
    this.remoteAgents.set(type, factory);
    return this;
  }
}
