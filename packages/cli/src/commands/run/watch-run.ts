import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Runner } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { type Io, styles } from '../../io.js';
import { type LiveProject, openLiveProject } from '../dev/live-project.js';
import { invoke, type RunCommandOptions } from './index.js';

/**
 * `agentctl run <agent> [prompt] --watch`: runs the prompt, then again on every good reload. A
 * run still going when a reload lands finishes on its own generation while the new one starts.
 * Without a prompt, each line of stdin becomes the prompt. Ends on Ctrl-C, SIGTERM or SIGHUP.
 */
export async function watchRun(options: RunCommandOptions, io: Io): Promise<number> {
  if ((options.approve?.length ?? 0) + (options.deny?.length ?? 0) > 0)
    throw new CliError('--watch cannot resume a paused session (--approve/--deny)', EXIT.usage);
  const s = styles(io.isTTY);
  let prompt = options.prompt?.trim() || undefined;
  let live: LiveProject | undefined;
  let code: number = EXIT.ok;
  const inFlight = new Set<Promise<void>>();

  const start = () => {
    if (!live || prompt === undefined) return;
    const run = runOnce(live, prompt).finally(() => inFlight.delete(run));
    inFlight.add(run);
  };

  const runOnce = async (project: LiveProject, input: string) => {
    let lease: Awaited<ReturnType<LiveProject['lease']>>;
    try {
      lease = await project.lease();
    } catch (error) {
      // A save renamed or removed the agent: said as dev says it, and the next save that brings it
      // back runs again. Thrown here it ended the command with a stack trace (from a stdin line) or
      // was reported as a failed reload of a generation that went live (from a reload).
      code = error instanceof CliError ? error.exitCode : EXIT.internal;
      io.stderr(s.red(`agentctl: ${(error as Error).message}\n`));
      return;
    }
    const sessionId = options.session && options.session !== 'new' ? options.session : randomUUID();
    io.stderr(s.dim(`── run on generation ${lease.generation.id}, session ${sessionId}\n`));
    const runner = new Runner({ agent: lease.agent, store: lease.store, writeBeforeTools: true });
    try {
      code = await invoke(runner, { input }, sessionId, options, io, undefined);
    } catch (error) {
      code = error instanceof CliError ? error.exitCode : EXIT.internal;
      io.stderr(s.red(`agentctl: ${(error as Error).message}\n`));
    } finally {
      lease.release();
      io.stderr(s.dim(`── run on generation ${lease.generation.id} ended\n`));
    }
  };

  live = await openLiveProject(options as unknown as Record<string, unknown>, io, options.agent, {
    onGeneration: (g) => {
      if (g.id > 1) start();
    },
    requireKeys: true,
  });
  start();
  const lines = prompt === undefined ? createInterface({ input: process.stdin }) : undefined;
  if (lines) {
    io.stderr(s.dim('waiting for a prompt on stdin (one per line)\n'));
    lines.on('line', (line) => {
      if (line.trim().length === 0) return;
      prompt = line.trim();
      start();
    });
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGHUP', () => resolve('SIGHUP'));
  });
  // Each signal cancels the runs in flight (invoke's own handlers) and waits for them: their
  // sessions end with the cancel, and the code is the cancelled run's (143 for SIGTERM). Stopped
  // between runs, the watch ends with the last run's code, as a server stopped ends well.
  lines?.close();
  process.stdin.destroy();
  await Promise.allSettled(inFlight);
  await live.watch.close();
  return signal === 'SIGINT' ? EXIT.interrupted : code;
}
