import { realpathSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import type { Io } from './io.js';
import { shellQuote } from './shell-quote.js';

/**
 * How to type this very command again from the folder `from`: `agentctl` when that name on the
 * PATH is this program, else `node` and the path of its script.
 */
export function commandName(
  io: Io,
  from: string,
  script = process.argv[1],
): { command: string; hint?: string } {
  const self = real(script);
  for (const dir of (io.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const found = real(join(dir, 'agentctl'));
    if (found && found === self) return { command: 'agentctl' };
  }
  // Not installed (e.g. run from a clone): name the script itself, and say how to install it.
  const near = script ? relative(from, script) : 'agentctl';
  const path = script && near.startsWith('..') ? script : near;
  return {
    command: `node ${shellQuote(path)}`,
    hint: 'to type `agentctl` instead: npm i -g @agentctl/cli (from a clone: see "Install the command" in its README)',
  };
}

function real(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
