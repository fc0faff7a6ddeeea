import type { AnyTool, ToolContext } from '@agentctl/core';
import { OutputLimitError, runProcess } from '@agentctl/core';
import type { ToolDefinition } from '../definitions.js';
import type { FactoryContext } from '../registry.js';
import { fillArgs } from './args-template.js';
import { closedParameters } from './closed-parameters.js';
import { argvProblems } from './command-argv.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;
const ELEMENT_TEMPLATE = /^\{\{\s*args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/;

/** A `kind: tool` with `command`: runs a program (never a shell) per call and returns its output. */
export function commandTool(spec: ToolDefinition, ctx: FactoryContext): AnyTool {
  const command = spec.command as NonNullable<ToolDefinition['command']>;
  const [problem] = argvProblems(command.argv);
  if (problem) throw new Error(problem.message);
  const cwd = ctx.resolvePath(command.cwd ?? '.');
  const limit = command.maxOutputBytes ?? DEFAULT_MAX_BYTES;
  const allowDash = new Set(command.allowDash);
  // Only PATH and the declared names: a tool must not see the API keys of the process running it.
  const env: Record<string, string> = {};
  for (const name of ['PATH', ...command.env]) {
    const value = ctx.env[name];
    if (value !== undefined) {
      env[name] = value;
      if (name !== 'PATH') ctx.secrets.offer(value, [name]);
    }
  }
  return {
    name: spec.name,
    description: spec.description ?? `Runs ${command.argv[0]}`,
    parameters: closedParameters(spec.parameters),
    needsApproval: spec.needsApproval,
    idempotent: spec.idempotent,
    timeout: spec.timeoutMs,
    async execute(args: Record<string, unknown>, call: ToolContext) {
      const argv = command.argv.map((part, i) => {
        const filled = fillArgs(part, args);
        // A value at the start of an element that begins with "-" would be read as an option.
        const lead = i > 0 ? ELEMENT_TEMPLATE.exec(part)?.[1] : undefined;
        if (lead !== undefined && filled.startsWith('-') && !allowDash.has(lead)) {
          throw new Error(
            `argument \`${lead}\` starts with "-", which ${command.argv[0]} would read as an option; it was not run`,
          );
        }
        return filled;
      });
      let output: Awaited<ReturnType<typeof runProcess>>;
      try {
        output = await runProcess(argv, {
          cwd,
          env,
          maxOutputBytes: limit,
          stdin: command.stdinJson ? JSON.stringify(args) : undefined,
          signal: call.signal,
        });
      } catch (error) {
        if (error instanceof OutputLimitError)
          throw new Error(`${argv[0]} wrote more than max_output_bytes (${limit}); stopped`);
        throw error;
      }
      if (output.code !== 0) {
        const detail = (output.stderr.trim() || output.stdout.trim()).slice(-500);
        throw new Error(
          `${argv[0]} exited with ${output.code ?? output.signal}${detail ? `: ${detail}` : ''}`,
        );
      }
      return output.stdout.replace(/\n$/, '');
    },
  };
}
