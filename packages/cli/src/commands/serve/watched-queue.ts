import type { QueueSettings, Runtime } from '@agentctl/config';
import type { CliError } from '../../cli-error.js';
import { queueSettings } from '../../queue-settings.js';

/**
 * The queue settings of `serve --watch`: the first good generation's `queue:` (AGENTCTL_QUEUE_URL
 * winning, as without --watch). A later save that changes them is reported, not applied: the queue
 * connection is not swapped under runs in flight, so new settings take effect on restart.
 */
export class WatchedQueue {
  #settings?: QueueSettings;
  #problem?: CliError;
  #inUse = '';
  #last = '';

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly say: (text: string) => void,
  ) {}

  /** The settings to open the queue with; throws what was wrong with the first generation's `queue:`. */
  get settings(): QueueSettings {
    if (this.#problem) throw this.#problem;
    return this.#settings ?? {};
  }

  /** Reads the `queue:` of a generation that just went live (the first one sets what is used). */
  see(runtime: Pick<Runtime, 'specs'>): void {
    const first = this.#settings === undefined && this.#problem === undefined;
    let text: string;
    let settings: QueueSettings;
    try {
      settings = queueSettings(runtime, this.env);
      text = JSON.stringify(settings);
      if (first) this.#settings = settings;
    } catch (error) {
      if (first) this.#problem = error as CliError;
      text = `invalid: ${(error as Error).message}`;
      if (!first && text !== this.#last)
        this.say(`[reload] ${(error as Error).message}; the queue in use is kept until restart\n`);
      this.#last = text;
      return;
    }
    if (first) this.#inUse = text;
    else if (text !== this.#last) {
      const note = this.#note(settings, text);
      if (note) this.say(note);
    }
    this.#last = text;
  }

  #note(settings: QueueSettings, text: string): string | undefined {
    const inUse = this.#settings ?? {};
    // No queue before or after: the project's name (which queued jobs carry) changed, or
    // agentctl.yaml went away, and there is no queue for it to matter to.
    if (!inUse.url && !settings.url) return undefined;
    if (text === this.#inUse) return '[reload] agentctl.yaml queue: is back to the settings in use\n';
    if (JSON.stringify({ ...settings, project: inUse.project }) === this.#inUse)
      return '[reload] agentctl.yaml name: changed; queued runs keep the name in use until serve restarts\n';
    return '[reload] agentctl.yaml queue: changed; queue settings take effect when serve restarts (the connection is not swapped under runs in flight)\n';
  }
}
