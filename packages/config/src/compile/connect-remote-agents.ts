import { createRegistry } from '../create-registry.js';
import type { Diagnostic } from '../diagnostic.js';
import type { Env } from '../env/interpolate.js';
import { projectEnv } from '../env/project-env.js';
import type { LoadedProject } from '../load/load-project.js';
import type { Registry } from '../registry.js';
import { remoteSpecOf } from './build-agent.js';
import { Compiler } from './compiler.js';

/**
 * `validate --connect`: reaches every remote agent (`type: a2a`) whose type has a probe, as a run
 * would before its first message (for A2A: its card, with its headers, and a transport the card
 * offers), without running it. What fails is an error at the agent's `url`, its secrets scrubbed.
 */
export async function connectRemoteAgents(
  project: LoadedProject,
  options: { registry?: Registry; env?: Env } = {},
): Promise<Diagnostic[]> {
  const env = await projectEnv(project.root, project.specs, options.env);
  const compiler = new Compiler(project.root, project.specs, options.registry ?? createRegistry(), env);
  await Promise.all(
    [...project.specs.agent.values()].map(async (entry) => {
      const probe = compiler.registry.remoteProbes.get((entry.spec as { type?: string }).type ?? '');
      const spec = probe && compiler.definition('agent', entry);
      if (!probe || !spec) return;
      await compiler.attempt(entry, ['url'], 'remote-agent', async () => {
        try {
          await probe(remoteSpecOf(spec), compiler.factoryContext(entry));
        } catch (error) {
          throw new Error(`remote agent \`${entry.name}\` cannot be reached: ${(error as Error).message}`);
        }
      });
    }),
  );
  return compiler.diagnostics;
}
