import { getJson } from './api.js';
import type { ProjectStatus } from './api-types.js';

/** The project's reload state, kept live from `GET /project/events`, for every view that shows it. */
export class StatusFeed {
  #listeners = new Set<(status: ProjectStatus) => void>();
  #current: ProjectStatus | undefined;
  #source: EventSource | undefined;

  /** The last status heard, if any. */
  get current(): ProjectStatus | undefined {
    return this.#current;
  }

  /** Calls `listener` with each status from now on (and at once with the current one). */
  subscribe(listener: (status: ProjectStatus) => void): void {
    this.#listeners.add(listener);
    if (this.#current) listener(this.#current);
  }

  /**
   * Reads the status once (so a missing token shows at once) and then follows the event stream;
   * EventSource reconnects by itself when the server restarts.
   */
  async start(): Promise<void> {
    this.#publish(await getJson<ProjectStatus>('/project/status'));
    this.#source = new EventSource('/project/events', { withCredentials: true });
    this.#source.addEventListener('status', (event) => {
      this.#publish(JSON.parse((event as MessageEvent<string>).data) as ProjectStatus);
    });
  }

  #publish(status: ProjectStatus): void {
    this.#current = status;
    for (const listener of this.#listeners) listener(status);
  }
}
