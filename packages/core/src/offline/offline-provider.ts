import type { ModelProvider } from '../model.js';
import type { Cassette } from '../recording-provider.js';
import { AutoModel } from './auto-model.js';
import { EchoModel } from './echo-model.js';
import { ReplayModel } from './replay-model.js';
import { ScriptModel, type ScriptTurn } from './script-model.js';

/** The models of the offline provider. */
export type OfflineMode = 'echo' | 'script' | 'auto' | 'replay';

/** Every offline model name. */
export const OFFLINE_MODES: readonly OfflineMode[] = ['echo', 'script', 'auto', 'replay'];

/** Options of {@link offline}. */
export interface OfflineOptions {
  /** The turns of a `script` model. */
  script?: readonly ScriptTurn[];
  /** The recorded calls a `replay` model plays (see `agentctl run --record`). */
  cassette?: Cassette;
  /** Where the script or cassette came from, for error messages. */
  source?: string;
  /**
   * `replay` only: also match the model id of each request. Off by default, because the agent
   * asks the replay model for `replay`, not for the model that was recorded.
   */
  matchModel?: boolean;
  /** Milliseconds between streamed words for `echo` and `replay`. */
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
    case 'replay':
      return new ReplayModel(options.cassette ?? { version: 1, interactions: [] }, {
        source: options.source,
        delayMs: options.delayMs,
        matchModel: options.matchModel ?? false,
      });
  }
}
