import { apiUrl, getJson, Unauthorized } from './api.js';
import type { ProjectStatus } from './api-types.js';

// How long the page waits before it asks again after the server refused the event stream.
const RETRY_MS = 2_000;
// The tabs of one server (an origin) share one event stream: a browser opens at most six
// connections to a host, and one stream per tab held them all from the sixth tab on, so no page,
// request or chat could get through any more. The tab holding the lock follows the stream and
// tells the others over the channel. One stream per server, not per origin: a proxy may serve two
// agentctl servers under two paths of one origin, and each tab must hear its own.
const SHARED = `agentctl-project-status ${apiUrl('/')}`;

// What the following tab tells the others.
type Shared = { kind: 'status'; status: ProjectStatus } | { kind: 'reconnected' } | { kind: 'refused' };

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
   * Reads the status once (so a missing token shows at once) and then follows the event stream,
   * one stream for all the tabs of this server: the first tab follows it and passes on what it
   * hears; when that tab closes, another takes over. EventSource reconnects by itself when the
   * connection drops, but gives up for good when the server answers with an error (a restart with
   * another token): the page then asks once more, so a 401 shows how to sign in (in every tab),
   * and follows the stream again after a pause otherwise.
   */
  async start(): Promise<void> {
    this.#publish(await getJson<ProjectStatus>('/project/status'));
    // Without Web Locks (a page served over plain http to another machine is no secure context),
    // each tab follows its own stream.
    if (typeof BroadcastChannel === 'undefined' || !navigator.locks) {
      this.#connect(undefined);
      return;
    }
    const channel = new BroadcastChannel(SHARED);
    channel.addEventListener('message', (event: MessageEvent<Shared>) => this.#hear(event.data));
    // Held until the tab goes away, or the server refuses it: the next tab waiting for it then
    // follows the stream (a tab signed in again, say, rather than one still refused).
    void navigator.locks.request(
      SHARED,
      () => new Promise<void>((release) => this.#connect(channel, release)),
    );
  }

  #hear(message: Shared): void {
    if (message.kind === 'status') this.#publish(message.status);
    else if (message.kind === 'reconnected') this.#reconnect();
    // This tab finds out for itself, and so shows how to sign in.
    else
      void getJson<ProjectStatus>('/project/status').then(
        (status) => this.#publish(status),
        () => {},
      );
  }

  #connect(channel: BroadcastChannel | undefined, release?: () => void): void {
    const tell = (message: Shared) => channel?.postMessage(message);
    const source = new EventSource(apiUrl('/project/events'), { withCredentials: true });
    source.addEventListener('open', () => {
      if (this.#opened) {
        this.#reconnect();
        tell({ kind: 'reconnected' });
      }
      this.#opened = true;
    });
    source.addEventListener('status', (event) => {
      const status = JSON.parse((event as MessageEvent<string>).data) as ProjectStatus;
      this.#publish(status);
      tell({ kind: 'status', status });
    });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) return;
      getJson<ProjectStatus>('/project/status').then(
        (status) => {
          this.#publish(status);
          tell({ kind: 'status', status });
          setTimeout(() => this.#connect(channel, release), RETRY_MS);
        },
        (error: unknown) => {
          if (!(error instanceof Unauthorized)) setTimeout(() => this.#connect(channel, release), RETRY_MS);
          else {
            tell({ kind: 'refused' });
            release?.();
          }
        },
      );
    });
  }

  #reconnect(): void {
    for (const listener of this.#reconnected) listener();
  }

  #publish(status: ProjectStatus): void {
    this.#current = status;
    for (const listener of this.#listeners) listener(status);
  }
}
