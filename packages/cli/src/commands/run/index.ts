import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline/promises';
import type { ApprovalDecision, InvocationResult, PendingApproval, RunOptions } from '@agentctl/core';
import {
  assertSessionId,
  isAgentError,
  parseDuration,
  Runner,
  SessionBusyError,
  UsageError,
} from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { type Io, styles } from '../../io.js';
import { openRuntime } from '../../project.js';
import { sessionStoreFor } from '../../session-store.js';
import { allowsCall, parseAllowRules } from './allow-rules.js';
import { readStdin } from './read-stdin.js';
import { jsonRenderer, textRenderer } from './render-events.js';

/** Options of `agentctl run`. */
export interface RunCommandOptions {
  agent: string;
  prompt?: string;
  json?: boolean;
  session?: string;
  /** `--wait [DURATION]`: how long to wait for a session another run holds (true: the default). */
  wait?: string | boolean;
  /** The user whose `user:` state the run shares. */
  user?: string;
  approve?: string[];
  deny?: string[];
  reason?: string;
  approveAll?: boolean;
  /** `--allow` patterns: matching calls run without asking (deny rules of the YAML still win). */
  allow?: string[];
  project?: string;
  /** Reload the project on every change and run the prompt again (`--watch`). */
  watch?: boolean;
}

/** `agentctl run <agent> [prompt]`: one-shot, from stdin, a chat on a terminal, or a resume. */
export async function runCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  const options = raw as unknown as RunCommandOptions;
  parseAllowRules(options.allow ?? []); // a malformed --allow is a usage error before any server starts
  waitMs(options); // a bad --session or --wait is a usage error before any server starts
  if (options.watch) return (await import('./watch-run.js')).watchRun(options, io);
  // Only the agent asked for (and what it uses) is compiled: another agent's missing key must not stop it.
  const { project, runtime } = await openRuntime(raw, io, [options.agent]);
  try {
    const agent = runtime.agents.get(options.agent);
    if (!agent) {
      const names = [...project.specs.agent.keys()].sort();
      throw new CliError(
        `no agent named "${options.agent}". Agents in this project: ${names.join(', ') || '(none)'}`,
        EXIT.usage,
      );
    }
    const runner = new Runner({ agent, store: await sessionStoreFor(agent, runtime) });
    const resuming = (options.approve?.length ?? 0) + (options.deny?.length ?? 0) > 0;
    if (resuming) {
      if (!options.session || options.session === 'new') {
        throw new CliError('--approve and --deny need --session ID of the paused session', EXIT.usage);
      }
      return await invoke(runner, { resume: decisionsOf(options) }, options.session, options, io, undefined);
    }
    const fresh = !options.session || options.session === 'new';
    const sessionId = fresh ? randomUUID() : (options.session as string);
    if (fresh) io.stderr(styles(io.isTTY).dim(`session ${sessionId}\n`));
    let prompt = options.prompt;
    if (prompt === undefined && io.stdinIsTTY && !options.json)
      return await chat(runner, sessionId, options, io);
    if (prompt === undefined) prompt = (await readStdin()).trim();
    if (prompt.length === 0) throw new CliError('no prompt: pass one as an argument or on stdin', EXIT.usage);
    const rl =
      io.stdinIsTTY && !options.json
        ? createInterface({ input: process.stdin, output: process.stderr })
        : undefined;
    try {
      return await invoke(runner, { input: prompt }, sessionId, options, io, rl);
    } finally {
      rl?.close();
    }
  } finally {
    await runtime.dispose();
  }
}

const DEFAULT_WAIT_MS = 30_000;

/** `--wait` in ms (0 without it), and `--session` checked against the id rule: both usage errors. */
function waitMs(options: RunCommandOptions): number {
  if (options.session !== undefined && options.session !== 'new') {
    try {
      assertSessionId(options.session);
    } catch (error) {
      throw new CliError(`--session: ${(error as Error).message}`, EXIT.usage);
    }
  }
  if (options.wait === undefined || options.wait === false) return 0;
  if (options.wait === true) return DEFAULT_WAIT_MS;
  try {
    return parseDuration(options.wait, '--wait');
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
}

function decisionsOf(options: RunCommandOptions): ApprovalDecision[] {
  return [
    ...(options.approve ?? []).map((callId) => ({ callId, approve: true })),
    ...(options.deny ?? []).map((callId) => ({ callId, approve: false, reason: options.reason })),
  ];
}

/** Runs (or resumes) one invocation, rendering its events; returns the exit code. */
export async function invoke(
  runner: Runner,
  what: { input: string } | { resume: ApprovalDecision[] },
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
  const common = {
    sessionId,
    wait: waitMs(options),
    userId: options.user,
    signal: controller.signal,
    onApproval: approver(options, io, rl),
  };
  try {
    const run =
      'input' in what
        ? runner.run({ ...common, input: what.input })
        : runner.resume({ ...common, decisions: what.resume });
    // The runner rejects without closing its event stream when it fails before the first event
    // (unknown session, bad call id, a paused session given a prompt): stop reading then, or the
    // loop waits forever and node exits 0 with nothing printed.
    const early = run.invocation.then(
      () => new Promise<never>(() => undefined),
      (error: unknown) => (isAgentError(error) ? new Promise<never>(() => undefined) : { early: error }),
    );
    const events = run[Symbol.asyncIterator]();
    while (true) {
      const next = await Promise.race([events.next(), early]);
      if ('early' in next || next.done) break;
      render(next.value);
    }
    const result = await run.invocation.catch((error: unknown) => error);
    if (isAgentError(result)) return result.code === 'ABORTED' ? 130 : EXIT.failed;
    if (result instanceof UsageError) throw new CliError(result.message, EXIT.usage);
    if (result instanceof SessionBusyError) {
      const hint = options.wait ? '' : '; pass --wait [DURATION] to wait for it';
      throw new CliError(`${result.message}${hint}`, EXIT.failed);
    }
    if (result instanceof Error) throw result;
    reportPause(result as InvocationResult, runner.agent.name, sessionId, options, io);
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function approver(options: RunCommandOptions, io: Io, rl: Interface | undefined): RunOptions['onApproval'] {
  if (options.approveAll) return async () => true;
  // Asked only once the agent's policy says "ask": its deny rules have already refused what they match.
  const rules = parseAllowRules(options.allow ?? []);
  const ask = rl ? prompter(io, rl) : undefined;
  if (rules.length === 0) return ask;
  return async (pending) => {
    if (pending.kind !== 'input' && allowsCall(rules, pending.call)) return true;
    return ask?.(pending); // undefined leaves the call pending: the run pauses
  };
}

function prompter(io: Io, rl: Interface): (pending: PendingApproval) => Promise<ApprovalDecision> {
  const s = styles(io.isTTY);
  return async (pending: PendingApproval): Promise<ApprovalDecision> => {
    const args = JSON.stringify(pending.call.arguments);
    const question =
      pending.kind === 'input' ? `${pending.reason} ` : `Allow ${pending.call.name}(${args})? [y/N] `;
    const answer = (await rl.question(s.yellow(question))).trim();
    if (pending.kind === 'input') return { callId: pending.call.id, approve: true, input: answer };
    if (/^y(es)?$/i.test(answer)) return { callId: pending.call.id, approve: true };
    const reason = (await rl.question('Reason (optional): ')).trim();
    return { callId: pending.call.id, approve: false, reason: reason || undefined };
  };
}

function reportPause(
  result: InvocationResult,
  agent: string,
  sessionId: string,
  options: RunCommandOptions,
  io: Io,
): void {
  if (result.status !== 'paused' || options.json) return;
  const s = styles(io.isTTY);
  io.stderr(s.yellow(`paused: ${result.pending?.length ?? 0} tool call(s) wait for a decision\n`));
  for (const p of result.pending ?? [])
    io.stderr(`  ${p.call.id}  ${p.call.name}(${JSON.stringify(p.call.arguments)})\n`);
  io.stderr(
    `resume with: agentctl run ${agent} --session ${sessionId} --approve <call id> (or --deny <call id> --reason "...")\n`,
  );
}

async function chat(runner: Runner, sessionId: string, options: RunCommandOptions, io: Io): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const s = styles(io.isTTY);
  io.stderr(s.dim(`chatting with ${runner.agent.name}; an empty line or Ctrl-D ends the chat\n`));
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
      code = await invoke(runner, { input: line }, sessionId, options, io, rl);
    }
  } finally {
    rl.close();
  }
  return code;
}
