import type { ApprovalDecision, PendingApproval } from '@agentctl/core';
import { type RunEnd, RunQueue } from '@agentctl/queue';
import { CliError, EXIT } from '../../cli-error.js';
import { type Io, styles } from '../../io.js';
import { openProject } from '../../project.js';
import { connectQueue, queueSettings, requireQueueUrl } from '../../queue-settings.js';
import { unknownAgent } from '../../unknown-agent.js';
import { exitCodeOf, type RunCommandOptions, reportPause } from './index.js';
import { readStdin } from './read-stdin.js';
import { jsonRenderer, textRenderer } from './render-events.js';

/**
 * `agentctl run --queue`: enqueues the run (or the decisions for a paused session) for a worker and
 * renders its events as they arrive, with the exit code a local run would have. Ctrl-C stops
 * following; the run goes on in the queue.
 */
export async function queuedRun(
  options: RunCommandOptions,
  decisionsOf: (options: RunCommandOptions, cwd: string) => Promise<ApprovalDecision[]>,
  io: Io,
): Promise<number> {
  // They decide calls in this process; a queued run asks on the worker and pauses. Dropping them
  // silently would leave a user who meant to approve with a paused run, and no word why.
  if (options.approveAll || (options.allow?.length ?? 0) > 0)
    throw new CliError(
      `${options.approveAll ? '--approve-all' : '--allow'} does not reach a queued run: the worker pauses on a call that needs approval; decide it with \`agentctl run ${options.agent} --session ID --approve CALL_ID --queue\``,
      EXIT.usage,
    );
  const project = await openProject(options as unknown as Record<string, unknown>, io, options.agent);
  if (!project.specs.agent.has(options.agent)) {
    throw unknownAgent(options.agent, project.specs.agent.keys());
  }
  const settings = queueSettings(project, io.env);
  const url = requireQueueUrl(settings, 'run --queue');
  const decisions = await decisionsOf(options, io.cwd);
  const fresh = !options.session || options.session === 'new';
  if (decisions.length > 0 && fresh)
    throw new CliError('--approve, --deny and --answer need --session ID of the paused session', EXIT.usage);
  let input: string | undefined;
  if (decisions.length === 0) {
    input = options.prompt ?? (io.stdinIsTTY ? undefined : (await readStdin()).trim());
    if (!input)
      throw new CliError('run --queue needs a prompt: pass one as an argument or on stdin', EXIT.usage);
  }
  const connection = await connectQueue(url, settings.urlFrom);
  const queue = new RunQueue(connection, {
    attempts: settings.attempts,
    backoff: settings.backoff,
    project: settings.project,
  });
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on('SIGINT', onSigint);
  try {
    const { runId, sessionId } = await queue.enqueue({
      agent: options.agent,
      sessionId: fresh ? undefined : options.session,
      userId: options.user,
      input,
      decisions: decisions.length > 0 ? decisions : undefined,
    });
    const s = styles(io.isTTY);
    if (fresh) io.stderr(s.dim(`session ${sessionId}\n`));
    io.stderr(s.dim(`queued run ${runId}\n`));
    // A run queued where no worker listens waits for one as long as it takes: say so, or the
    // command looks hung. The run stays queued, so this is a word, not a failure.
    const listening = await queue.depth().then(
      (d) => d.workers,
      () => undefined,
    );
    if (listening === 0)
      io.stderr(
        `agentctl: no worker is listening on this queue yet: the run waits until one starts (\`agentctl worker\`); Ctrl-C stops following, the run stays queued\n`,
      );
    const render = options.json ? jsonRenderer(io) : textRenderer(io);
    let end: RunEnd | undefined;
    for await (const entry of queue.follow(runId, undefined, stop.signal)) {
      if (entry.event) render(entry.event);
      if (entry.end) end = entry.end;
    }
    if (!end) {
      io.stderr(`\nstopped following; run ${runId} goes on in the queue\n`);
      return EXIT.interrupted;
    }
    if (end.status === 'paused' && !options.json) {
      reportPause(
        { status: 'paused', pending: end.pending as PendingApproval[] },
        options.agent,
        sessionId,
        options,
        io,
      );
      io.stderr(s.dim('(add --queue to resume it through the queue)\n'));
    }
    if (end.status !== 'error') return EXIT.ok;
    if (end.code === 'USAGE') throw new CliError(end.message ?? 'the run was refused', EXIT.usage);
    if (end.code === 'INTERNAL_ERROR') io.stderr(`agentctl: the run failed in the queue: ${end.message}\n`);
    return exitCodeOf(end.code ?? 'INTERNAL_ERROR');
  } finally {
    process.off('SIGINT', onSigint);
    await queue.close();
    connection.disconnect();
  }
}
