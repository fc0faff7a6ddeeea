import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  compileProject,
  createRegistry,
  loadProject,
  type Runtime,
} from '../../packages/config/src/index.js';
import { type Agent, BUILTIN_TOOLS } from '../../packages/core/src/index.js';
import { mcpToolsetFactory } from '../../packages/mcp/src/index.js';
import { openaiFromSpec } from '../../packages/provider-openai/src/index.js';

/** A project written to a temp folder and compiled with the openai provider and MCP toolsets registered. */
export interface CompiledProject {
  runtime: Runtime;
  agent(name: string): Agent;
  close(): Promise<void>;
}

/** Writes `files` (path -> YAML) to a fresh folder, loads and compiles it; fails on any error diagnostic. */
export async function compileYaml(files: Record<string, string>): Promise<CompiledProject> {
  const root = await mkdtemp(join(tmpdir(), 'agentctl-yaml-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  const registry = createRegistry()
    .registerProvider('openai', (spec) => openaiFromSpec(spec as never))
    .registerToolset('mcp', mcpToolsetFactory);
  for (const [name, factory] of Object.entries(BUILTIN_TOOLS)) {
    registry.registerBuiltinTool(name, (options, ctx) =>
      (factory as (o: unknown) => never)({ root: ctx.root, ...options }),
    );
  }
  const project = await loadProject({ project: root, env: {} });
  const { runtime, diagnostics } = await compileProject(project, { registry, env: {} });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!runtime || errors.length > 0) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`the project did not compile: ${errors.map((d) => d.message).join('; ')}`);
  }
  return {
    runtime,
    agent(name) {
      const agent = runtime.agents.get(name);
      if (!agent) throw new Error(`no agent ${name}`);
      return agent;
    },
    async close() {
      await runtime.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}
