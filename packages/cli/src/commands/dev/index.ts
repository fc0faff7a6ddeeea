import { randomUUID } from 'node:crypto';
import type { Interface } from 'node:readline/promises';
import { Runner } from '@agentctl/core';
import { CliError, EXIT } from '../../cli-error.js';
import { type Io, styles } from '../../io.js';
import { terminalReadline } from '../../terminal-readline.js';
import { parseAllowRules } from '../run/allow-rules.js';
import {
  assertSessionOption,
  assertUserOption,
  invoke,
  type RunCommandOptions,
  stopsChat,
} from '../run/index.js';
import { type LiveProject, openLiveProject } from './live-project.js';

/** Options of `agentctl dev`. */
export interface DevCommandOptions {
  agent: string;
  json?: boolean;
  session?: string;
  model?: string;
  /** The user whose `user:` state keys the chat shares. */
  user?: string;
  approveAll?: boolean;
  /** `--allow` patterns: matching calls run without asking (deny rules of the YAML still win). */
  allow?: string[];
  project?: string;
}

/**
 * `agentctl dev <agent>`: a chat with the agent (a terminal, or one message per line of piped
 * stdin) while the project reloads on every save. Each message runs on the generation live when
 * it is sent, in one session kept across reloads.
 */
export async function devCommand(raw: Record<string, unknown>, io: Io): Promise<number> {
  if (raw.ui === true) return devUi(raw, io);
  if (raw.agent === undefined)
    throw new CliError(
      `name the agent to chat with: agentctl dev <agent>${await agentsToName(raw, io)}, or open the page: agentctl dev --ui`,
      EXIT.usage,
    );
  if (raw.port !== undefined)
    throw new CliError('--port is for --ui (the terminal chat listens on nothing)', EXIT.usage);
  const options = raw as unknown as DevCommandOptions;
  parseAllowRules(options.allow ?? []); // a malformed --allow is a usage error before the watch starts
  assertSessionOption(options.session); // and a bad --session, rather than at every message
  assertUserOption(options.user);
  if (options.json) io.reserveStdout?.(); // NDJSON only: console.log of a module goes to stderr
  const tty = io.stdinIsTTY;
  let rl: Interface | undefined;
  let asking = false;
  // A reload report landing while `you> ` waits goes above the prompt, which is then redrawn.
  const reportIo: Io = {
    ...io,
    stderr: (text) => {
      if (!asking || !rl) return io.stderr(text);
      io.stderr(`\r\u001b[K${text}`);
      rl.prompt(true);
    },
  };
  const live = await openLiveProject(raw, reportIo, options.agent, { waitForFix: true });
  const s = styles(io.isTTY);
  const sessionId =
    options.session !== undefined && options.session !== 'new' ? options.session : randomUUID();
  io.stderr(s.dim(`session ${sessionId}\n`));
  rl = terminalReadline({
    input: process.stdin,
    output: tty ? process.stderr : undefined,
    terminal: tty,
  });
  io.stderr(
    s.dim(
      `chatting with ${options.agent}: save a file and the next message uses it; ${tty ? 'an empty line or Ctrl-D ends' : 'the end of input ends'}\n`,
    ),
  );
  let code: number = EXIT.ok;
  const send = async (line: string) => {
    code = await message(live, line, sessionId, options, io, tty ? rl : undefined);
  };
  try {
    if (tty) {
      while (true) {
        let line: string;
        try {
          asking = true;
          line = (await rl.question(s.bold('you> '))).trim();
        } catch {
          break;
        } finally {
          asking = false;
        }
        if (line.length === 0) break;
        await send(line);
        if (stopsChat(code)) break;
      }
    } else {
      for await (const raw of rl) {
        const line = raw.trim();
        if (line.length > 0) await send(line);
        if (stopsChat(code)) break;
      }
    }
  } finally {
    rl.close();
    await live.watch.close();
  }
  return code;
}

// The project's agents, for a first `agentctl dev` that named none ('' where there is no project).
async function agentsToName(raw: Record<string, unknown>, io: Io): Promise<string> {
  try {
    const { loadProject } = await import('@agentctl/config');
    const project = await loadProject({
      cwd: io.cwd,
      project: raw.project as string | undefined,
      env: io.env,
    });
    const names = [...project.specs.agent.keys()].sort();
    return names.length > 0 ? ` (agents here: ${names.join(', ')})` : '';
  } catch {
    return '';
  }
}

// The terminal chat's options have no meaning for the page.
const CHAT_ONLY = {
  json: '--json',
  session: '--session',
  user: '--user',
  approveAll: '--approve-all',
  allow: '--allow',
};

/** `agentctl dev --ui [agent]`: `serve --watch --ui` on loopback; the page opens on `agent`. */
async function devUi(raw: Record<string, unknown>, io: Io): Promise<number> {
  for (const [key, flag] of Object.entries(CHAT_ONLY))
    if (raw[key] !== undefined) throw new CliError(`${flag} is for the terminal chat, not --ui`, EXIT.usage);
  const { serveCommand } = await import('../serve/index.js');
  // The page's user is the operator on this machine: a failure's own text is theirs to read.
  return serveCommand({ ...raw, host: '127.0.0.1', watch: true, ui: true, exposeErrors: true }, io);
}

async function message(
  live: LiveProject,
  line: string,
  sessionId: string,
  options: DevCommandOptions,
  io: Io,
  rl: Interface | undefined,
): Promise<number> {
  let lease: Awaited<ReturnType<LiveProject['lease']>> | undefined;
  try {
    lease = await live.lease();
    const runner = new Runner({ agent: lease.agent, store: lease.store, writeBeforeTools: true });
    return await invoke(runner, { input: line }, sessionId, options as RunCommandOptions, io, rl);
  } catch (error) {
    // One failed message does not end the session being developed.
    const text = error instanceof CliError ? error.message : `internal error: ${(error as Error).message}`;
    io.stderr(styles(io.isTTY).red(`agentctl: ${text}\n`));
    return error instanceof CliError ? error.exitCode : EXIT.internal;
  } finally {
    lease?.release();
  }
}
