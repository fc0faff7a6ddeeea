import type { SourcePosition, UsageStats } from './api-types.js';

/** `file:line:column`, as diagnostics print it. */
export function formatSource(source: SourcePosition): string {
  return `${source.file}:${source.line}:${source.column}`;
}

/** Milliseconds as `850 ms` or `1.25 s`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Tokens in and out, and the cost when the model declares prices. */
export function formatUsage(usage: UsageStats | undefined): string {
  if (!usage) return '';
  const cost = usage.estimatedCost === undefined ? '' : ` · $${usage.estimatedCost.toFixed(6)}`;
  return `${usage.inputTokens} in / ${usage.outputTokens} out tokens${cost}`;
}

/** A time of day, for lists and timelines. */
export function formatTime(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString();
}

/** A value as indented JSON, for arguments, results and state. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** `1 message`, `2 messages`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// C0 controls (but tab, newline and carriage return, which a page only breaks lines at), DEL, C1
// controls, and bidirectional overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSEEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as the page shows it: control characters and bidi overrides written out as `\uXXXX` (as
 * the terminal shows them), so what a model or a tool wrote cannot hide or reorder what a person
 * reads, above all a call they are asked to approve.
 * @example visibleText('rm \u202Etxt.exe'); // 'rm \\u202etxt.exe'
 */
export function visibleText(text: string): string {
  return text.replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
