import type { ApprovalDecision, InvocationResult, Session } from '@agentctl/core';
import { findAgent, isAgentError, isPlainObject } from '@agentctl/core';
import { type Context, Hono } from 'hono';
import { boundedStream } from './bounded-stream.js';
import type { ErrorShield } from './error-shield.js';
import { HttpError } from './http-error.js';
import {
  checkSession,
  type InvokeContext,
  type InvokeRequest,
  invoke,
  refuseInsideParent,
  type StartedRun,
} from './invoke.js';
import { jsonBody } from './json-body.js';
import { enqueueRun } from './queued-routes.js';
import { optionalBoolean, optionalString, readJson } from './read-json.js';
import { sessionPage, sessionPageParams, sessionPageRequest } from './session-page.js';

/**
 * The native API: agents, runs (SSE of the same events as `run --json`, or one JSON result),
 * sessions and decisions on paused sessions.
 */
export function nativeRoutes(context: InvokeContext): Hono {
  const app = new Hono();

  app.get('/agents', (c) => c.json({ agents: context.source.list() }));

  app.post('/agents/:agent/runs', async (c) => {
    const body = await readJson(c);
    const input = body.input;
    if (typeof input !== 'string' || input.length === 0)
      throw new HttpError(400, 'bad_request', '`input` must be a non-empty string');
    const request: InvokeRequest = {
      agent: c.req.param('agent'),
      input,
      sessionId: optionalString(body, 'sessionId'),
      userId: optionalString(body, 'userId'),
    };
    const { queued, stream } = howToAnswer(body);
    if (queued) {
      if (request.sessionId) await checkQueuedSession(context, request);
      return enqueueRun(c, context, request);
    }
    return respond(c, context, await invoke(context, request), stream);
  });

  app.get('/sessions', async (c) => {
    const request = sessionPageRequest(sessionPageParams(c.req.queries()));
    return c.json(await sessionPage(await context.source.stores(), request));
  });

  app.get('/sessions/:id', async (c) => {
    const view = sessionView(await findSession(context, c.req.param('id')), context.shield);
    // An event at a time: a long session's JSON is longer than any one string.
    return c.body(
      jsonBody(view, (key) => key === 'events'),
      200,
      { 'content-type': 'application/json' },
    );
  });

  app.delete('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const found = await findSession(context, id);
    for (const store of await context.source.stores()) await refuseInsideParent(store, found);
    // A running session cannot be deleted under its run.
    const ticket = context.tracker.begin(id);
    try {
      for (const store of await context.source.stores()) await store.delete(id);
    } finally {
      ticket.end();
    }
    return c.body(null, 204);
  });

  app.post('/sessions/:id/decisions', async (c) => {
    const id = c.req.param('id');
    const body = await readJson(c);
    const decisions = parseDecisions(body.decisions);
    const { queued, stream } = howToAnswer(body);
    const session = await findSession(context, id);
    if (decisions.length === 0) throw new HttpError(400, 'bad_request', noDecisions(session));
    const agent = resumingAgent(context, session);
    if (!agent) throw new HttpError(409, 'unknown_agent', `session ${id} names no agent to resume`);
    const request: InvokeRequest = {
      agent,
      sessionId: id,
      decisions,
      userId: optionalString(body, 'userId'),
    };
    if (queued) {
      await checkQueuedSession(context, request);
      return enqueueRun(c, context, request);
    }
    return respond(c, context, await invoke(context, request), stream);
  });

  return app;
}

/** `async` and `stream` of a run's body: both optional booleans, streamed unless `stream: false`. */
function howToAnswer(body: Record<string, unknown>): { queued: boolean; stream: boolean } {
  return {
    queued: optionalBoolean(body, 'async') === true,
    stream: optionalBoolean(body, 'stream') !== false,
  };
}

// A queued run is refused at once for a session in the wrong state, like a direct one.
async function checkQueuedSession(context: InvokeContext, request: InvokeRequest): Promise<void> {
  for (const store of await context.source.stores()) {
    if (await store.get(request.sessionId!)) return checkSession(store, request.sessionId!, request);
  }
  if (request.decisions)
    throw new HttpError(404, 'unknown_session', `no session with id ${request.sessionId}`);
}

/**
 * The agent that resumes a paused session: the one the session belongs to, unless a run of an agent
 * outside its tree paused it (a session continued by another agent); that agent resumes it then.
 */
function resumingAgent(context: InvokeContext, session: Session): string | undefined {
  const paused = (session.checkpoint as { agent?: string } | undefined)?.agent;
  if (!session.agent || paused === undefined || paused === session.agent) return session.agent || paused;
  const lease = context.source.lease(session.agent);
  if (!lease) return paused;
  try {
    return findAgent(lease.agent, paused) ? session.agent : paused;
  } finally {
    lease.release();
  }
}

async function findSession(context: InvokeContext, id: string): Promise<Session> {
  for (const store of await context.source.stores()) {
    const session = await store.get(id);
    if (session) return session;
  }
  throw new HttpError(404, 'unknown_session', `no session with id ${id}`);
}

// The checkpoint is the runner's business; callers need only what waits for them. The session's
// error events are read as the run's stream sent them: the full texts stay in the session.
function sessionView(session: Session, shield: ErrorShield): Record<string, unknown> {
  const { checkpoint, events, ...rest } = session;
  const pending = (checkpoint as { pending?: unknown[] } | undefined)?.pending;
  return {
    ...rest,
    events: events.map((event) => shield.event(event, session.id)),
    paused: checkpoint !== undefined,
    pending: pending ?? [],
  };
}

// A resume deciding nothing would go on with the pending calls unanswered: said with their names.
function noDecisions(session: Session): string {
  const pending = (session.checkpoint as { pending?: { call: { id: string; name: string } }[] } | undefined)
    ?.pending;
  if (!pending?.length) return '`decisions` must be a non-empty array';
  const calls = pending.map((p) => `${p.call.id} (${p.call.name})`).join(', ');
  return `\`decisions\` is empty: session ${session.id} is paused waiting for a decision on ${calls}; approve, deny or answer at least one`;
}

/**
 * `[{ callId, decision: approve | deny | answer, reason?, answer?, name?, arguments? }]` to the
 * runner's decisions; `name` and `arguments` are the call as the deciding person saw it.
 */
function parseDecisions(raw: unknown): ApprovalDecision[] {
  // An empty list is refused once the session is found, naming the calls it leaves undecided.
  if (!Array.isArray(raw)) throw new HttpError(400, 'bad_request', '`decisions` must be a non-empty array');
  // One decision per call: a call approved and denied in one request has no single outcome.
  const seen = new Map<string, number>();
  return raw.map((item, i) => {
    const d = (item ?? {}) as Record<string, unknown>;
    if (typeof d.callId !== 'string')
      throw new HttpError(400, 'bad_request', `decisions[${i}].callId must be a string`);
    const earlier = seen.get(d.callId);
    if (earlier !== undefined)
      throw new HttpError(
        400,
        'bad_request',
        `decisions[${i}].callId: call ${d.callId} is already decided by decisions[${earlier}]`,
      );
    seen.set(d.callId, i);
    const shown = seenCall(d, i);
    switch (d.decision) {
      case 'approve':
        return { callId: d.callId, approve: true, ...shown };
      case 'deny':
        if (d.reason !== undefined && d.reason !== null && typeof d.reason !== 'string')
          throw new HttpError(400, 'bad_request', `decisions[${i}].reason must be a string`);
        return {
          callId: d.callId,
          approve: false,
          reason: typeof d.reason === 'string' ? d.reason : undefined,
          ...shown,
        };
      case 'answer':
        if (typeof d.answer !== 'string')
          throw new HttpError(400, 'bad_request', `decisions[${i}].answer must be a string`);
        return { callId: d.callId, approve: true, input: d.answer, ...shown };
      default:
        throw new HttpError(400, 'bad_request', `decisions[${i}].decision must be approve, deny or answer`);
    }
  });
}

// Both or neither: a name alone would let other arguments through.
function seenCall(d: Record<string, unknown>, i: number): Pick<ApprovalDecision, 'seen'> {
  if (d.name === undefined && d.arguments === undefined) return {};
  if (typeof d.name !== 'string' || !isPlainObject(d.arguments))
    throw new HttpError(
      400,
      'bad_request',
      `decisions[${i}]: name (a string) and arguments (an object) go together, as the call was shown`,
    );
  return { seen: { name: d.name, arguments: d.arguments } };
}

async function respond(
  c: Context,
  context: InvokeContext,
  run: StartedRun,
  stream: boolean,
): Promise<Response> {
  c.header('x-agentctl-session', run.sessionId);
  if (!stream) {
    for await (const _ of run.events) {
      // The result carries what a caller needs; the events are in the session.
    }
    const result = await run.result.catch((error: unknown) => error);
    return c.json(resultBody(run, result, context.shield));
  }
  // The run is stored: a client that leaves (or is cut off for not reading) does not stop it, and
  // its events are read to the end whatever the connection does.
  return boundedStream(c, context.streamLimit, async (out) => {
    for await (const event of run.events) out.event({ event: event.type, data: JSON.stringify(event) });
    await run.result.catch(() => undefined);
  });
}

function resultBody(
  run: StartedRun,
  result: InvocationResult | unknown,
  shield: ErrorShield,
): Record<string, unknown> {
  if (isAgentError(result))
    return {
      status: 'error',
      sessionId: run.sessionId,
      error: { code: result.code, message: result.message },
    };
  if (result instanceof Error)
    return {
      status: 'error',
      sessionId: run.sessionId,
      error: { code: 'internal', message: `internal error (ref ${shield.internal(result)})` },
    };
  return { ...(result as InvocationResult) };
}
