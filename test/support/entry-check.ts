import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliEnv, REPO } from './cli.js';

const run = promisify(execFile);

/** The check script, inside @agentctl/core so that it imports the package by its own name. */
export const ENTRY_CHECK = join(REPO, 'packages/core/test/fixtures/entry-check.mjs');

/** What {@link ENTRY_CHECK} prints. */
export interface EntryCheck {
  main: string;
  testing: string;
  names: string[];
  testingNames: string[];
  functionNames: Record<string, string>;
  ajvBeforeRun: boolean;
  ajvAfterRun: boolean;
  echo: string;
  toolResults: { isError: boolean; content: string }[];
  output: string;
  shared: { scriptModel: boolean; agentError: boolean; errorName: string; stack: string };
}

/** Runs the check script (or a copy of it elsewhere) with these node options and parses its line. */
export async function entryCheck(script: string, nodeOptions: string[] = []): Promise<EntryCheck> {
  const { stdout } = await run(process.execPath, [...nodeOptions, script], {
    env: cliEnv(),
    timeout: 30_000,
  });
  return JSON.parse(stdout) as EntryCheck;
}

/** The parts of a check that every way of loading core must answer alike. */
export const behaviour = ({ main, testing, shared, ...rest }: EntryCheck) => ({
  ...rest,
  shared: { ...shared, stack: undefined },
});
