import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline/promises';
import type {
  AgentEvent,
  AgentResult,
  ApprovalDecision,
  LlmAgent,
  PendingApproval,
  RunOptions,
} from '@agentctl/core';
import { isAgentError } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { type Io, styles } from '../../io.js';
import { openRuntime } from '../../project.js';
import { readStdin } from './read-stdin.js';
import { jsonRenderer, textRenderer } from './render-events.js';

/** Options of `agentctl run`. */
export interface RunCommandOptions {
  agent: string;
  prompt?: string;
  json?: boolean;
  session?: string;
  approveAll?: boolean;
  project?: string;
}

/** `agentctl run <agent> [prompt]`: one-shot, from stdin, or a chat on a terminal. */
export async function runCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = raw as unknown as RunCommandOptions;
  const { runtime } = await openRuntime(raw, io);
  try {
    const agent = runtime.agents.get(options.agent);
    if (!agent) {
      const names = [...runtime.agents.keys()].sort();
      throw new CliError(
        `no agent named "${options.agent}". Agents in this project: ${names.join(', ') || '(none)'}`,
        EXIT.usage,
      );
    }
    const sessionId = !options.session || options.session === 'new' ? randomUUID() : options.session;
    if (!options.session || options.session === 'new')
      io.stderr(styles(io.isTTY).dim(`session ${sessionId}\n`));
    let prompt = options.prompt;
    if (prompt === undefined && io.stdinIsTTY && !options.json)
      return await chat(agent, sessionId, options, io);
    if (prompt === undefined) prompt = (await readStdin()).trim();
    if (prompt.length === 0) throw new CliError('no prompt: pass one as an argument or on stdin', EXIT.usage);
    const rl =
      io.stdinIsTTY && !options.json
        ? createInterface({ input: process.stdin, output: process.stderr })
        : undefined;
    try {
      return await runOnce(agent, prompt, sessionId, options, io, rl);
    } finally {
      rl?.close();
    }
  } finally {
    await runtime.dispose();
  }
}

async function runOnce(
  agent: LlmAgent,
  prompt: string,
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
  rl: Interface | undefined,
): Promise<number> {
  const render = options.json ? jsonRenderer(io) : textRenderer(io);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.stderr('\ncancelling… (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const runOptions: RunOptions = {
    sessionId,
    signal: controller.signal,
    onApproval: approver(options, io, rl),
  };
  try {
    const run = agent.run(prompt, runOptions);
    for await (const event of run) render(event);
    const result = await run.result.catch((error: unknown) => error);
    if (isAgentError(result)) return result.code === 'ABORTED' ? 130 : EXIT.failed;
    if (result instanceof Error) throw result;
    reportPause(result as AgentResult, agent.name, sessionId, options, io);
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function approver(options: RunCommandOptions, io: Io, rl: Interface | undefined): RunOptions['onApproval'] {
  if (options.approveAll) return async () => true;
  if (!rl) return undefined;
  const s = styles(io.isTTY);
  return async (pending: PendingApproval): Promise<ApprovalDecision> => {
    const args = JSON.stringify(pending.call.arguments);
    const answer = (await rl.question(s.yellow(`Allow ${pending.call.name}(${args})? [y/N] `)))
      .trim()
      .toLowerCase();
    if (answer === 'y' || answer === 'yes') return { callId: pending.call.id, approve: true };
    const reason = (await rl.question('Reason (optional): ')).trim();
    return { callId: pending.call.id, approve: false, reason: reason || undefined };
  };
}

function reportPause(
  result: AgentResult,
  agent: string,
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
): void {
  if (result.status !== 'paused' || options.json) return;
  const s = styles(io.isTTY);
  io.stderr(s.yellow(`paused: ${result.pending?.length ?? 0} tool call(s) need approval\n`));
  for (const p of result.pending ?? [])
    io.stderr(`  ${p.call.id}  ${p.call.name}(${JSON.stringify(p.call.arguments)})\n`);
  io.stderr(
    `resume with: agentctl run ${agent} --session ${sessionId} --approve <call id> (or --deny <call id> --reason "...")\n`,
  );
}

async function chat(agent: LlmAgent, sessionId: string, options: RunCommandOptions, io: Io): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const s = styles(io.isTTY);
  io.stderr(s.dim(`chatting with ${agent.name}; an empty line or Ctrl-D ends the chat\n`));
  let code: number = EXIT.ok;
  try {
    while (true) {
      let line: string;
      try {
        line = (await rl.question(s.bold('you> '))).trim();
      } catch {
        break;
      }
      if (line.length === 0) break;
      code = await runOnce(agent, line, sessionId, options, io, rl);
    }
  } finally {
    rl.close();
  }
  return code;
}

export type { AgentEvent };
