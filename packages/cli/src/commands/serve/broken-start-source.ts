import { type AgentSource, HttpError, type ProjectStatusBoard } from '@agentctl/server';

/**
 * What a watched project that started broken serves until a save makes it valid: its reload state
 * (the dev UI shows the diagnostics, with `file:line:col`) and an empty graph; every agent and
 * session route answers `503 project_invalid` at once, instead of a connection that never answers.
 */
export function brokenStartSource(root: string, status: ProjectStatusBoard): AgentSource {
  const refuse = (): never => {
    throw new HttpError(
      503,
      'project_invalid',
      'the project is not valid yet: agentctl serves it as soon as a save fixes it (its terminal, and GET /project/status, say what is wrong)',
    );
  };
  return {
    list: refuse,
    lease: refuse,
    stores: async () => refuse(),
    project: () => ({ generation: null, root, agents: [] }),
    status: () => status.current,
    onStatus: (listener) => status.subscribe(listener),
  };
}
