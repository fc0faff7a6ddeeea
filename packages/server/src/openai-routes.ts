import { randomUUID } from 'node:crypto';
import type { InvocationResult, Message, UsageStats } from '@agentctl/core';
import { Hono } from 'hono';
import type { AgentInfo } from './agent-source.js';
import { boundedStream } from './bounded-stream.js';
import { HttpError, openaiErrorBody } from './http-error.js';
import type { InvokeContext } from './invoke.js';
import { finishOf, invokeConversation, pauseOf, runFailure, SESSION_HEADER } from './openai-run.js';
import { ownWords } from './own-words.js';
import { optionalBoolean, readJson } from './read-json.js';

/**
 * The OpenAI-compatible endpoint: `GET /v1/models` lists the agents (`GET /v1/models/{agent}` gives one), `POST /v1/chat/completions`
 * with `model: <agent>` runs one. With the session header the last user message continues that
 * stored session; without it the request's messages are the whole history, kept in memory.
 */
export function openaiRoutes(context: InvokeContext): Hono {
  const app = new Hono();
  const created = Math.floor(Date.now() / 1000);

  const modelOf = (a: AgentInfo) => ({
    id: a.name,
    object: 'model',
    created,
    owned_by: 'agentctl',
    description: a.description,
  });
  app.get('/v1/models', (c) => c.json({ object: 'list', data: context.source.list().map(modelOf) }));
  // What the SDKs' `models.retrieve(id)` asks: one agent, or the 404 a chat completion gives for it.
  app.get('/v1/models/:model{.+}', (c) => {
    const name = c.req.param('model');
    const agent = context.source.list().find((a) => a.name === name);
    if (!agent) throw new HttpError(404, 'unknown_agent', `no agent named "${name}"`);
    return c.json(modelOf(agent));
  });

  app.post('/v1/chat/completions', async (c) => {
    const body = await readJson(c);
    if (typeof body.model !== 'string') throw new HttpError(400, 'bad_request', '`model` must name an agent');
    const streamed = optionalBoolean(body, 'stream') === true;
    refuseUnsupported(body, streamed);
    const messages = parseMessages(body.messages);
    const last = messages.at(-1);
    if (last?.role !== 'user')
      throw new HttpError(400, 'bad_request', 'the last message must come from the user');
    const sessionId = c.req.header(SESSION_HEADER);
    const run = await invokeConversation(c, context, { model: body.model, user: body.user }, messages);
    const id = `chatcmpl-${randomUUID()}`;
    const stamp = Math.floor(Date.now() / 1000);
    const base = { id, created: stamp, model: body.model };
    if (!streamed) {
      for await (const _ of run.events) {
        // Only the final answer goes back; the events stay in the session.
      }
      const result = await run.result.catch((error: unknown) => error);
      if (result instanceof Error) throw runFailure(result, context);
      const r = result as InvocationResult;
      return c.json({
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: r.output },
            finish_reason: finishOf(r),
            logprobs: null,
          },
        ],
        usage: usageOf(r.usage),
        ...(r.status === 'paused' ? { agentctl: pauseOf(r, sessionId) } : {}),
      });
    }
    const includeUsage =
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    // A client cut off for not reading is a client gone: a stateless run stops (the request's
    // signal aborts as the socket closes), a stored session's goes on.
    return boundedStream(c, context.streamLimit, async (sse) => {
      const chunk = (
        delta: Record<string, unknown>,
        finish: string | null,
        extra: Record<string, unknown> = {},
      ) =>
        sse.event({
          data: JSON.stringify({
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
            ...extra,
          }),
        });
      chunk({ role: 'assistant', content: '' }, null);
      const said = ownWords();
      for await (const event of run.events) {
        if (said(event)) chunk({ content: event.text }, null);
      }
      const result = await run.result.catch((error: unknown) => error);
      if (result instanceof Error) {
        const failure = runFailure(result, context);
        sse.event({ data: JSON.stringify(openaiErrorBody(failure.status, failure.code, failure.message)) });
        return;
      }
      const r = result as InvocationResult;
      // The last chunk carries the pause as the non-streamed answer does: the calls to decide.
      chunk({}, finishOf(r), r.status === 'paused' ? { agentctl: pauseOf(r, sessionId) } : {});
      if (includeUsage)
        sse.event({
          data: JSON.stringify({
            ...base,
            object: 'chat.completion.chunk',
            choices: [],
            usage: usageOf(r.usage),
          }),
        });
      sse.event({ data: '[DONE]' });
    });
  });

  return app;
}

// OpenAI counts cached tokens inside the prompt tokens; agentctl keeps them apart (and in the total).
function usageOf(usage: UsageStats) {
  return {
    prompt_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

/**
 * Refuses what a chat completion request asks for that an agent cannot give, naming the parameter:
 * answered anyway, a client would take one choice for `n` of them, or the agent's own tool calls
 * for the functions it offered. Sampling settings (`temperature`, `max_tokens`...) stay the agent's
 * own and are not refused: clients send them by default.
 */
function refuseUnsupported(body: Record<string, unknown>, streamed: boolean): void {
  const refuse = (param: string, message: string) => {
    throw new HttpError(400, 'unsupported_parameter', message, {}, param);
  };
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    refuse('n', '`n` must be 1: an agent gives one answer per run');
  for (const param of ['tools', 'functions'])
    if (Array.isArray(body[param]) ? (body[param] as unknown[]).length > 0 : body[param] != null)
      refuse(param, `\`${param}\` is not supported: the agent calls its own tools, declared in its YAML`);
  for (const param of ['tool_choice', 'function_call'])
    if (body[param] != null && body[param] !== 'auto' && body[param] !== 'none')
      refuse(param, `\`${param}\` must be "auto" or "none": a request offers the agent no tools of its own`);
  const format = (body.response_format as { type?: unknown } | null | undefined)?.type;
  if (body.response_format != null && format !== 'text')
    refuse(
      'response_format',
      '`response_format` must be {"type": "text"}: an agent\'s output shape is its `output_schema`',
    );
  if (body.stream_options != null && !streamed)
    refuse('stream_options', '`stream_options` is only allowed when `stream` is true');
}

/** OpenAI chat messages to history; system messages are left out (the agent has its own instruction). */
function parseMessages(raw: unknown): Pick<Message, 'role' | 'content'>[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new HttpError(400, 'bad_request', '`messages` must be a non-empty array');
  const out: Pick<Message, 'role' | 'content'>[] = [];
  raw.forEach((item, i) => {
    const m = (item ?? {}) as { role?: unknown; content?: unknown };
    if (m.role === 'system' || m.role === 'developer') return;
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new HttpError(
        400,
        'bad_request',
        `messages[${i}].role must be system, developer, user or assistant`,
      );
    out.push({ role: m.role, content: textOf(m.content, i) });
  });
  return out;
}

function textOf(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  // Only text reaches an agent: any other part would be dropped unseen, so it is refused instead.
  if (Array.isArray(content))
    return content
      .map((part: { type?: unknown; text?: unknown } | null, j) => {
        if (part?.type !== 'text')
          throw new HttpError(
            400,
            'bad_request',
            `messages[${i}].content[${j}] is ${typeof part?.type === 'string' ? `a part of type ${part.type}` : 'not a part'}: only text parts are read`,
            {},
            `messages[${i}].content[${j}]`,
          );
        if (typeof part.text !== 'string')
          throw new HttpError(400, 'bad_request', `messages[${i}].content[${j}].text must be a string`);
        return part.text;
      })
      .join('');
  throw new HttpError(400, 'bad_request', `messages[${i}].content must be a string or a list of text parts`);
}
