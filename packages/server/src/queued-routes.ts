import { type Context, Hono } from 'hono';
import { boundedStream } from './bounded-stream.js';
import { HttpError } from './http-error.js';
import type { InvokeContext, InvokeRequest } from './invoke.js';
import { publicBase } from './public-address.js';
import { queueAnswer } from './queue-answer.js';
import type { QueuedRuns } from './queued-runs.js';

/**
 * `GET /runs/{id}/events`: a queued run's events as SSE, from any server node, each with the id of
 * its place in the run's stream; `Last-Event-ID` (or `?after=`) resumes after that place. The
 * stream ends with an `end` event carrying how the run ended.
 */
export function queuedRoutes(context: InvokeContext, maxFollowers: number): Hono {
  const app = new Hono();
  // Each follower reads the run's stream on a connection of its own to the queue's Redis: without
  // a cap, a client could open followers until Redis refuses connections to every node.
  let following = 0;
  app.get('/runs/:id/events', async (c) => {
    const queue = requireQueue(context);
    const id = c.req.param('id');
    if (!(await queueAnswer(context.shield, queue.exists(id))))
      throw new HttpError(404, 'unknown_run', `no queued run with id ${id}`);
    const after = eventId(c);
    const closing = context.tracker.closing;
    if (closing.aborted) throw new HttpError(503, 'shutting_down', 'the server is shutting down');
    if (following >= maxFollowers) {
      throw new HttpError(
        429,
        'too_many_followers',
        `${maxFollowers} streams of queued runs are open (--max-followers); try again shortly`,
        { 'retry-after': '1' },
      );
    }
    following++;
    return boundedStream(c, context.streamLimit, async (sse) => {
      const stop = new AbortController();
      const end = () => stop.abort();
      sse.onClose(end);
      // The run goes on in the queue whatever this node does: at shutdown its stream ends cleanly
      // (no `end` event), and the client resumes on another node with Last-Event-ID.
      closing.addEventListener('abort', end, { once: true });
      try {
        // The worker's error texts reach this client as a direct run's do: shielded, with the ref
        // of the error event the end repeats.
        let errorEvent: string | undefined;
        for await (const entry of queue.follow(id, after, stop.signal)) {
          if (entry.event) {
            if (entry.event.type === 'error') errorEvent = entry.event.id;
            const event = context.shield.event(entry.event);
            sse.event({ id: entry.id, event: event.type, data: JSON.stringify(event) });
          } else {
            const end = shieldedEnd(context, entry.end, errorEvent ?? `${id}#end`);
            sse.event({ id: entry.id, event: 'end', data: JSON.stringify(end) });
          }
        }
      } finally {
        closing.removeEventListener('abort', end);
        following--;
      }
    });
  });
  return app;
}

/** Enqueues a run (`async: true`) and answers 202 with its id and where its events stream. */
export async function enqueueRun(
  c: Context,
  context: InvokeContext,
  request: InvokeRequest,
): Promise<Response> {
  const queue = requireQueue(context);
  const lease = context.source.lease(request.agent);
  if (!lease) throw new HttpError(404, 'unknown_agent', `no agent named "${request.agent}"`);
  lease.release();
  const { runId, sessionId } = await queueAnswer(
    context.shield,
    queue.enqueue({
      agent: request.agent,
      sessionId: request.sessionId,
      userId: request.userId,
      input: request.input,
      decisions: request.decisions,
    }),
  );
  // Behind a proxy that serves this server under a path, `/runs/...` is not where clients find it.
  const address = context.address ?? {};
  const base = address.publicUrl !== undefined || address.trustProxy ? publicBase(c, address) : '';
  const events = `${base}/runs/${runId}/events`;
  c.header('x-agentctl-session', sessionId);
  c.header('location', events);
  return c.json({ status: 'queued', runId, sessionId, events }, 202);
}

const UINT64_MAX = 2n ** 64n - 1n;

// `Last-Event-ID` or `?after=` as sent in an event's `id:` (`<ms>-<seq>`, each a 64-bit count): the
// queue would fail on anything else once the stream has begun, leaving an empty 200.
function eventId(c: Context): string | undefined {
  const header = c.req.header('last-event-id');
  const field = header !== undefined ? 'Last-Event-ID' : '?after=';
  const value = header ?? c.req.query('after');
  if (value === undefined) return undefined;
  const parts = /^(\d{1,20})(?:-(\d{1,20}))?$/.exec(value);
  if (!parts || BigInt(parts[1]) > UINT64_MAX || BigInt(parts[2] ?? '0') > UINT64_MAX)
    throw new HttpError(
      400,
      'bad_request',
      `${field} must be the id of an event of this stream (such as 1700000000000-0), not ${JSON.stringify(value.slice(0, 64))}`,
    );
  return value;
}

// A queued run's end as a client reads it: an operator's error text replaced by its ref.
function shieldedEnd(context: InvokeContext, end: unknown, key: string): unknown {
  const e = end as
    | { status?: unknown; code?: unknown; message?: unknown; sessionId?: unknown; blame?: unknown }
    | undefined;
  if (e?.status !== 'error' || typeof e.code !== 'string' || typeof e.message !== 'string') return end;
  const sessionId = typeof e.sessionId === 'string' ? e.sessionId : undefined;
  const { blame, ...rest } = e;
  return { ...rest, message: context.shield.message(e.code, e.message, { key, sessionId }, blame) };
}

function requireQueue(context: InvokeContext): QueuedRuns {
  if (context.queue) return context.queue;
  // A project not valid yet may well configure a queue: its source refuses for it (503
  // project_invalid), as on every other route, rather than this saying there is none.
  context.source.list();
  throw new HttpError(
    400,
    'no_queue',
    'queued runs need a queue: start serve with AGENTCTL_QUEUE_URL=redis://HOST:PORT (or queue.url in agentctl.yaml)',
  );
}
