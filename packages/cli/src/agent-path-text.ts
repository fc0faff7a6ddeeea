import { printable } from './printable.js';

/**
 * ` in pipeline › writer`: where an error happened, for a message, when the run has more than one
 * agent (a run of one agent needs no saying); empty otherwise.
 */
export function inAgent(path: readonly string[] | undefined): string {
  return path && path.length > 1 ? ` in ${path.map((name) => printable(name)).join(' › ')}` : '';
}
