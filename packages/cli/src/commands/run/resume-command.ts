import { commandName } from '../../command-name.js';
import type { Io } from '../../io.js';
import { shellQuote } from '../../shell-quote.js';
import type { RunCommandOptions } from './index.js';

/**
 * The command line, to paste in the folder the user ran from, that continues `session` of
 * `agent`: the same project (`-C`), user, model and `--allow` rules as this run, without which a
 * pasted line would open another project, miss the session, or call another model.
 *
 * @example
 * resumeCommand(io, { agent: 'a', project: 'proj' }, 'a', 's1'); // 'agentctl -C proj run a --session s1'
 */
export function resumeCommand(io: Io, options: RunCommandOptions, agent: string, session: string): string {
  const words = [commandName(io, io.cwd).command];
  if (options.project !== undefined) words.push('-C', shellQuote(options.project));
  words.push('run', shellQuote(agent), '--session', shellQuote(session));
  if (options.user !== undefined) words.push('--user', shellQuote(options.user));
  if (options.model !== undefined) words.push('--model', shellQuote(options.model));
  for (const pattern of options.allow ?? []) words.push('--allow', shellQuote(pattern));
  if (options.approveAll) words.push('--approve-all');
  return words.join(' ');
}

/**
 * `agentctl [-C DIR] sessions ARGS [--memory NAME]` as typed from the folder the user ran from, so
 * that it reaches the same project and store.
 */
export function sessionsCommand(
  io: Io,
  options: { project?: string; memory?: string },
  args: string,
): string {
  const words = [commandName(io, io.cwd).command];
  if (options.project !== undefined) words.push('-C', shellQuote(options.project));
  words.push('sessions', args);
  if (options.memory !== undefined) words.push('--memory', shellQuote(options.memory));
  return words.join(' ');
}
