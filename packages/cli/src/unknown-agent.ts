import { didYouMean } from '@agentctl/config';
import { CliError, EXIT } from './cli-error.js';

/**
 * The usage error of a command given an agent the project does not have: the nearest name first
 * (a typo is the usual cause), then every agent, so the right one can be copied.
 */
export function unknownAgent(name: string, agents: Iterable<string>): CliError {
  const names = [...agents].sort();
  const hint = didYouMean(name, names);
  return new CliError(
    `no agent named "${name}"${hint}${hint ? ' ' : '. '}Agents in this project: ${names.join(', ') || '(none)'}`,
    EXIT.usage,
  );
}
