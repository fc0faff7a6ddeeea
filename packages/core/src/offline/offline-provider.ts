import type { ModelProvider } from '../model.js';
import { AutoModel } from './auto-model.js';
import { EchoModel } from './echo-model.js';
import { ScriptModel, type ScriptTurn } from './script-model.js';

/** The models of the offline provider. */
export type OfflineMode = 'echo' | 'script' | 'auto';

/** Every offline model name. */
export const OFFLINE_MODES: readonly OfflineMode[] = ['echo', 'script', 'auto'];

/** Options of {@link offline}. */
export interface OfflineOptions {
  /** The turns of a `script` model. */
  script?: readonly ScriptTurn[];
  /** Where the script came from, for error messages. */
  source?: string;
  /** Milliseconds between streamed words for `echo`. */
  delayMs?: number;
}

/**
 * Makes an offline model: the embedded default, needing no network and no key.
 *
 * @example
 * createAgent({ name: 'hello', provider: offline('echo') });
 */
export function offline(mode: OfflineMode = 'echo', options: OfflineOptions = {}): ModelProvider {
  switch (mode) {
    case 'echo':
      return new EchoModel({ delayMs: options.delayMs });
    case 'auto':
      return new AutoModel();
    case 'script':
      return new ScriptModel(options.script ?? [], { source: options.source });
  }
}
