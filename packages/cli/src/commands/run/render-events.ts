import type { AgentEvent, UsageStats } from '@agentctl/core';
import { inAgent } from '../../agent-path-text.js';
import type { Io } from '../../io.js';
import { styles } from '../../io.js';
import { printable } from '../../printable.js';
import type { Spinner } from './spinner.js';

/**
 * Prints events for a person: the answer on stdout, tool activity and usage on stderr; with a
 * spinner, shows it while the model or a tool works and nothing is being written.
 */
export function textRenderer(io: Io, spinner?: Spinner): (event: AgentEvent) => void {
  const s = styles(io.isTTY);
  const running = new Map<string, string>();
  let midLine = false;
  let lastAuthor: string | undefined;
  // Parallel branches stream at once: one branch prints live, the others are held until it finishes.
  let live: string | undefined;
  const held = new Map<string, { author: string; text: string }>();
  const endLine = () => {
    if (midLine) io.stdout('\n');
    midLine = false;
  };
  const write = (author: string, text: string) => {
    if (lastAuthor !== author) {
      endLine();
      if (lastAuthor !== undefined) io.stderr(s.dim(`[${author}]\n`));
    }
    lastAuthor = author;
    io.stdout(text);
    midLine = !text.endsWith('\n');
  };
  return (event) => {
    spinner?.stop();
    render(event);
    if (!spinner) return;
    if (event.type === 'tool_call') running.set(event.call.id, event.call.name);
    if (event.type === 'tool_result') running.delete(event.callId);
    if (event.type === 'run_end' || event.type === 'approval_required') running.clear();
    // Never over half a line of streamed text, and not once the run has stopped.
    if (midLine || ['run_end', 'approval_required', 'error', 'text_delta'].includes(event.type)) return;
    spinner.start(running.size > 0 ? `running ${[...new Set(running.values())].join(', ')}` : 'thinking');
  };

  function render(event: AgentEvent): void {
    switch (event.type) {
      case 'text_delta': {
        live ??= event.branch;
        if (event.branch === live) {
          write(event.author, event.text);
          break;
        }
        const buffer = held.get(event.branch) ?? { author: event.author, text: '' };
        buffer.text += event.text;
        held.set(event.branch, buffer);
        break;
      }
      case 'message':
        if (event.message.role === 'assistant' && event.message.cutShort) {
          endLine();
          io.stderr(
            s.yellow(`  ! ${event.author}'s answer was cut short: ${CUT_SHORT[event.message.cutShort]}\n`),
          );
        }
        if (event.message.role !== 'assistant' || event.branch !== live) break;
        live = undefined;
        for (const [branch, buffer] of held) {
          held.delete(branch);
          write(buffer.author, buffer.text);
        }
        break;
      case 'tool_call':
        endLine();
        io.stderr(
          // Arguments that were not JSON are shown as the model sent them, not as the `{}` they became.
          s.dim(
            `  → ${event.call.name}(${clip(printable(event.call.malformedArguments ?? JSON.stringify(event.call.arguments)), 100)})\n`,
          ),
        );
        break;
      case 'tool_result': {
        // A failed call deep in a tree says which agent made it (its branch is its path).
        const by = event.isError ? inAgent(event.branch.split('.')) : '';
        const line = `  ← ${event.name}${by}: ${clip(printable(event.content.replace(/\s+/g, ' ')), 120)}`;
        io.stderr(`${event.isError ? s.red(`${line} [${event.errorCode ?? 'error'}]`) : s.dim(line)}\n`);
        break;
      }
      case 'transfer':
        endLine();
        // The next text is labelled with its author even when the agent transferring wrote none.
        lastAuthor ??= event.from;
        io.stderr(s.cyan(`  ⇢ ${event.from} transfers to ${event.to}\n`));
        break;
      case 'model_fallback':
        endLine();
        io.stderr(
          s.yellow(`  ⤳ model ${event.from} failed (${clip(event.reason, 160)}); asking ${event.to}\n`),
        );
        break;
      case 'error':
        endLine();
        io.stderr(s.red(`error [${event.code}]${inAgent(event.agentPath)}: ${event.message}\n`));
        io.stderr(missingKeyHint(event));
        break;
      case 'run_end':
        for (const [branch, buffer] of held) {
          held.delete(branch);
          write(buffer.author, buffer.text);
        }
        endLine();
        io.stderr(s.dim(`${formatUsage(event.usage, event.duration)}\n`));
        break;
      default:
        break;
    }
  }
}

// Why an answer stopped before its end, and what to do about it.
const CUT_SHORT = {
  length: 'the model reached its output limit (raise max_output_tokens for a longer answer)',
  content_filter: "the provider's content filter stopped it",
} as const;

/** Prints each event as one JSON line on stdout. */
export function jsonRenderer(io: Io): (event: AgentEvent) => void {
  return (event) => io.stdout(`${JSON.stringify(event)}\n`);
}

/** One line of usage: tokens per bucket, model calls, cost and time. */
export function formatUsage(usage: UsageStats, durationMs: number): string {
  const parts = [
    `tokens in ${usage.inputTokens}`,
    `out ${usage.outputTokens}`,
    `cache read ${usage.cacheReadTokens}`,
    `cache write ${usage.cacheWriteTokens}`,
    `total ${usage.totalTokens}`,
    `${usage.iterations} model call${usage.iterations === 1 ? '' : 's'}${usage.failedCalls ? ` (${usage.failedCalls} failed)` : ''}`,
  ];
  // The counts of such calls are 0 or agentctl's guess: the line must not read as the bill.
  if (usage.unreportedCalls)
    parts.push(
      usage.unreportedCalls === usage.iterations
        ? 'usage not reported by the provider'
        : `usage of ${usage.unreportedCalls} not reported by the provider`,
    );
  if (usage.estimatedCost !== undefined) parts.push(`$${usage.estimatedCost.toFixed(6)}`);
  parts.push(`${(durationMs / 1000).toFixed(2)} s`);
  return parts.join(' · ');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// A first run of an agent on a real model usually lacks its key: say how to go on without one.
function missingKeyHint(event: AgentEvent & { type: 'error' }): string {
  const env = event.code === 'PROVIDER_ERROR' ? event.context?.env : undefined;
  if (typeof env !== 'string') return '';
  return `hint: export ${env}=... and run again, or try the agent offline with no key: add \`--model offline/echo\` (or set \`model: offline/echo\` in its YAML)\n`;
}
