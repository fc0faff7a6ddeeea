import { getJson, Unauthorized } from './api.js';
import type { ProjectStatus } from './api-types.js';

// How long the page waits before it asks again after the server refused the event stream.
const RETRY_MS = 2_000;

/** The project's reload state, kept live from `GET /project/events`, for every view that shows it. */
export class StatusFeed {
  #listeners = new Set<(status: ProjectStatus) => void>();
  #reconnected = new Set<() => void>();
  #current: ProjectStatus | undefined;
  #opened = false;

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
   * Calls `listener` each time the stream is back after it was lost, before the status it brings:
   * the server may have been restarted on a project edited meanwhile, at the same generation number.
   */
  onReconnect(listener: () => void): void {
    this.#reconnected.add(listener);
  }

  /**
   * Reads the status once (so a missing token shows at once) and then follows the event stream.
   * EventSource reconnects by itself when the connection drops, but gives up for good when the
   * server answers with an error (a restart with another token): the page then asks once more, so a
   * 401 shows how to sign in, and follows the stream again after a pause otherwise.
   */
  async start(): Promise<void> {
    this.#publish(await getJson<ProjectStatus>('/project/status'));
    this.#connect();
  }

  #connect(): void {
    const source = new EventSource('/project/events', { withCredentials: true });
    source.addEventListener('open', () => {
      if (this.#opened) for (const listener of this.#reconnected) listener();
      this.#opened = true;
    });
    source.addEventListener('status', (event) => {
      this.#publish(JSON.parse((event as MessageEvent<string>).data) as ProjectStatus);
    });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) return;
      getJson<ProjectStatus>('/project/status').then(
        (status) => {
          this.#publish(status);
          setTimeout(() => this.#connect(), RETRY_MS);
        },
        (error: unknown) => {
          if (!(error instanceof Unauthorized)) setTimeout(() => this.#connect(), RETRY_MS);
        },
      );
    });
  }

  #publish(status: ProjectStatus): void {
    this.#current = status;
    for (const listener of this.#listeners) listener(status);
  }
}
