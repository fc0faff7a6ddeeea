import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { agentctl, type CliResult, parseNdjson, tempDir } from '../support/cli.js';

/** A project in a temp folder: `agentctl.yaml` plus the given files (paths relative to it). */
export async function probeProject(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('agentctl-probe-');
  const all = { 'agentctl.yaml': 'kind: project\nname: probe\n', ...files };
  for (const [file, text] of Object.entries(all)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return dir;
}

/**
 * YAML of an agent `main` on a script model that makes the given tool calls in its first turn
 * and then answers "done".
 */
export function scriptedAgent(tools: string, calls: Array<{ name: string; arguments: unknown }>): string {
  const turns = calls.map((call, i) => ({ id: `call_${i + 1}`, ...call }));
  return scriptedTurns(tools, [`tool_calls: ${JSON.stringify(turns)}`, 'text: done']);
}

/** YAML of an agent `main` with `tools` on a script model playing `turns` (each a YAML mapping on one line). */
export function scriptedTurns(tools: string, turns: string[]): string {
  return [
    'kind: agent',
    'name: main',
    'model: scripted',
    'instruction: Use the tools.',
    `tools: ${tools}`,
    '---',
    'kind: model',
    'name: scripted',
    'provider: offline',
    'model: script',
    'script:',
    ...turns.map((turn) => `  - ${turn}`),
    '',
  ].join('\n');
}

/** `agentctl run main go --json` in the project, plus the parsed events. */
export async function runMain(
  dir: string,
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<CliResult & { events: Array<Record<string, unknown> & { type: string }>; ms: number }> {
  const started = Date.now();
  const result = await agentctl(['run', 'main', 'go', '--json', ...extra], {
    cwd: dir,
    env,
    timeoutMs: 40_000,
  });
  const ms = Date.now() - started;
  const events = result.code === 0 || result.code === 1 ? safeEvents(result.stdout) : [];
  return { ...result, events, ms };
}

function safeEvents(stdout: string) {
  try {
    return parseNdjson(stdout);
  } catch {
    return [];
  }
}

/** The tool_result events of a run. */
export function toolResults(events: Array<Record<string, unknown> & { type: string }>) {
  return events.filter((e) => e.type === 'tool_result') as Array<{
    type: string;
    name: string;
    content: string;
    isError?: boolean;
  }>;
}

/** Whether a process is alive: a zombie (killed, not yet reaped by an init that never reaps) is not. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** The content of each tool result of a run, by call id (results arrive as calls finish, in any order). */
export function resultsByCall(
  events: Array<Record<string, unknown> & { type: string }>,
): Record<string, unknown> {
  return Object.fromEntries(events.filter((e) => e.type === 'tool_result').map((e) => [e.callId, e.content]));
}
