import { join } from 'node:path';
import { blockingAncestor, type Runtime } from '@agentctl/config';
import { type Agent, LlmAgent, type SessionStore, WorkflowAgent } from '@agentctl/core';
import { CliError, EXIT } from './cli-error.js';

/** True when a memory backend also keeps sessions (the file and memory stores do). */
function isSessionStore(value: unknown): value is SessionStore {
  const store = value as Partial<SessionStore> | undefined;
  return (
    typeof store?.append === 'function' &&
    typeof store.create === 'function' &&
    typeof store.get === 'function'
  );
}

/** The agent's own memory when it keeps sessions, else undefined (the project default applies). */
export function agentSessionStore(agent: Agent): SessionStore | undefined {
  const memory =
    agent instanceof LlmAgent
      ? agent.getConfig().memory
      : agent instanceof WorkflowAgent
        ? agent.memory
        : undefined;
  return isSessionStore(memory) ? memory : undefined;
}

/** The embedded default: the file store in `<project>/.agentctl/sessions`. */
export async function projectSessionStore(root: string): Promise<SessionStore> {
  checkSessionsFolder(join(root, '.agentctl/sessions'));
  const { fileMemoryBackend } = await import('@agentctl/store-file');
  return fileMemoryBackend({}, { root });
}

/**
 * Fails (exit 1, one line) when a file stands where the sessions folder or one of its parents
 * goes (a stray `.agentctl` file): the store would fail on its first write, as an internal error.
 */
export function checkSessionsFolder(folder: string): void {
  const blocker = blockingAncestor(join(folder, 'session'));
  if (blocker)
    throw new CliError(`cannot keep sessions in ${folder}: ${blocker} is a file, not a folder`, EXIT.failed);
}

/**
 * The store the command line keeps sessions in: the agent's memory when it is a session store,
 * else the file store in `<project>/.agentctl/sessions` (the embedded default).
 */
export async function sessionStoreFor(agent: Agent, runtime: Runtime): Promise<SessionStore> {
  return agentSessionStore(agent) ?? projectSessionStore(runtime.root);
}
