import { spawn } from 'node:child_process';
import type { AnyTool, ToolContext } from '@agentctl/core';
import { parseDuration } from '@agentctl/core';
import type { FactoryContext } from '../registry.js';
import type { CommandToolSpec, ToolSpec } from '../spec-types.js';
import { fillArgs } from './args-template.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;

/** A `kind: tool` with `command`: runs a program (never a shell) per call and returns its output. */
export function commandTool(spec: ToolSpec, ctx: FactoryContext): AnyTool {
  const command = spec.command as CommandToolSpec;
  const cwd = ctx.resolvePath(command.cwd ?? '.');
  const limit = command.max_output_bytes ?? DEFAULT_MAX_BYTES;
  // Only PATH and the declared names: a tool must not see the API keys of the process running it.
  const env: Record<string, string> = {};
  for (const name of ['PATH', ...(command.env ?? [])]) {
    const value = ctx.env[name];
    if (value !== undefined) {
      env[name] = value;
      if (name !== 'PATH') ctx.secrets.add(value);
    }
  }
  return {
    name: spec.name,
    description: spec.description ?? `Runs ${command.argv[0]}`,
    parameters: spec.parameters ?? { type: 'object', properties: {} },
    needsApproval: spec.needs_approval,
    timeout: parseDuration(spec.timeout),
    execute(args: Record<string, unknown>, call: ToolContext) {
      const argv = command.argv.map((part) => fillArgs(part, args));
      return run(argv, {
        cwd,
        env,
        limit,
        stdin: command.stdin_json ? JSON.stringify(args) : undefined,
        signal: call.signal,
        scrub: (t) => ctx.secrets.scrub(t),
      });
    },
  };
}

interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  limit: number;
  stdin?: string;
  signal: AbortSignal;
  scrub(text: string): string;
}

function run(argv: string[], options: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(options.signal.reason);
    const child = spawn(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const onAbort = () =>
      stop(options.signal.reason instanceof Error ? options.signal.reason : new Error('cancelled'));
    options.signal.addEventListener('abort', onAbort, { once: true });
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > options.limit)
        stop(new Error(`${argv[0]} wrote more than max_output_bytes (${options.limit}); stopped`));
      else into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.on('error', (error) =>
      stop(new Error(`cannot run ${argv[0]}: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
    child.on('close', (code, signal) => {
      options.signal.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0) {
        const detail = options.scrub(stderr.trim() || stdout.trim()).slice(-500);
        return reject(new Error(`${argv[0]} exited with ${code ?? signal}${detail ? `: ${detail}` : ''}`));
      }
      resolve(options.scrub(stdout.replace(/\n$/, '')));
    });
  });
}
