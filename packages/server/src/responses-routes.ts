import { randomUUID } from 'node:crypto';
import type { InvocationResult, Message, UsageStats } from '@agentctl/core';
import { Hono } from 'hono';
import { boundedStream } from './bounded-stream.js';
import { HttpError } from './http-error.js';
import type { InvokeContext } from './invoke.js';
import { finishOf, invokeConversation, pauseOf, runFailure, SESSION_HEADER } from './openai-run.js';
import { optionalBoolean, readJson } from './read-json.js';
import { ResponseItems, type ResponseMessageItem } from './response-items.js';

type Turn = Pick<Message, 'role' | 'content'>;

/**
 * OpenAI's Responses API on the agents: `POST /v1/responses` with `model: <agent>` runs one, its
 * `input` a string or a list of message items, answered as one response object or streamed as the
 * Responses events (`response.created` ... `response.output_text.delta` ... `response.completed`).
 * Nothing is stored under a response id: the `x-agentctl-session` header continues a session, as
 * on `/v1/chat/completions`.
 */
export function responsesRoutes(context: InvokeContext): Hono {
  const app = new Hono();

  app.post('/v1/responses', async (c) => {
    const body = await readJson(c);
    if (typeof body.model !== 'string')
      throw new HttpError(400, 'bad_request', '`model` must name an agent', {}, 'model');
    const streamed = optionalBoolean(body, 'stream') === true;
    refuseUnsupported(body, streamed);
    const turns = parseInput(body.input);
    const last = turns.at(-1);
    if (last?.role !== 'user')
      throw new HttpError(400, 'bad_request', 'the last input item must be a user message', {}, 'input');
    const sessionId = c.req.header(SESSION_HEADER);
    const run = await invokeConversation(c, context, { model: body.model, user: body.user }, turns);
    const shape = new ResponseShape(body.model, sessionId, body.metadata);
    if (!streamed) {
      const items = new ResponseItems();
      for await (const event of run.events) items.read(event);
      const result = await run.result.catch((error: unknown) => error);
      if (result instanceof Error) throw runFailure(result, context);
      return c.json(shape.finished(result as InvocationResult, items));
    }
    return boundedStream(c, context.streamLimit, async (sse) => {
      let sequence = 0;
      const send = (type: string, fields: Record<string, unknown>) =>
        sse.event({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
      const at = (item: ResponseMessageItem, index: number) => ({
        item_id: item.id,
        output_index: index,
        content_index: 0,
      });
      send('response.created', { response: shape.inProgress() });
      send('response.in_progress', { response: shape.inProgress() });
      const items = new ResponseItems({
        added: (item, index) => {
          send('response.output_item.added', { output_index: index, item: messageItem(item) });
          send('response.content_part.added', { ...at(item, index), part: outputText('') });
        },
        delta: (item, index, text) =>
          send('response.output_text.delta', { ...at(item, index), delta: text, logprobs: [] }),
        done: (item, index) => {
          send('response.output_text.done', { ...at(item, index), text: item.text, logprobs: [] });
          send('response.content_part.done', { ...at(item, index), part: outputText(item.text) });
          send('response.output_item.done', { output_index: index, item: messageItem(item) });
        },
      });
      for await (const event of run.events) items.read(event);
      const result = await run.result.catch((error: unknown) => error);
      if (result instanceof Error) {
        const failure = runFailure(result, context);
        send('response.failed', { response: shape.failed(failure, items) });
        return;
      }
      const answer = shape.finished(result as InvocationResult, items);
      send(answer.status === 'completed' ? 'response.completed' : 'response.incomplete', {
        response: answer,
      });
    });
  });

  return app;
}

// One response's fixed fields, and the object at each stage of its life.
class ResponseShape {
  readonly id = `resp_${randomUUID().replaceAll('-', '')}`;
  readonly #created = Math.floor(Date.now() / 1000);
  readonly #model: string;
  readonly #sessionId: string | undefined;
  readonly #metadata: Record<string, unknown>;

  constructor(model: string, sessionId: string | undefined, metadata: unknown) {
    this.#model = model;
    this.#sessionId = sessionId;
    this.#metadata =
      metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : {};
  }

  inProgress() {
    return this.#base('in_progress', []);
  }

  /**
   * A failed run: its error, and as its output the items said before it failed (as OpenAI's
   * `response.failed` does), the one cut off by the failure `incomplete`.
   */
  failed(failure: HttpError, items: ResponseItems) {
    items.fail();
    return {
      ...this.#base('failed', items.items.map(messageItem)),
      error: { code: failure.code, message: failure.message },
    };
  }

  /**
   * The answer, its output the run's message `items` ending with the answer: `completed`, or
   * `incomplete` when the model was cut short (`max_output_tokens`, `content_filter`) or the run
   * paused for a decision (its calls in `agentctl`, as on chat completions).
   */
  finished(result: InvocationResult, items: ResponseItems) {
    const finish = finishOf(result);
    const paused = result.status === 'paused';
    const status = finish === 'stop' && !paused ? 'completed' : 'incomplete';
    items.finish(result.output, finish === 'stop' ? 'completed' : 'incomplete');
    return {
      ...this.#base(status, items.items.map(messageItem)),
      completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
      incomplete_details:
        finish === 'length'
          ? { reason: 'max_output_tokens' }
          : finish === 'content_filter'
            ? { reason: 'content_filter' }
            : null,
      usage: usageOf(result.usage),
      ...(paused ? { agentctl: pauseOf(result, this.#sessionId) } : {}),
    };
  }

  #base(status: string, output: unknown[]) {
    return {
      id: this.id,
      object: 'response',
      created_at: this.#created,
      status,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: this.#model,
      output,
      parallel_tool_calls: false,
      previous_response_id: null,
      store: false,
      temperature: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      truncation: 'disabled',
      usage: null as ReturnType<typeof usageOf> | null,
      metadata: this.#metadata,
    };
  }
}

function messageItem(item: ResponseMessageItem) {
  return {
    type: 'message',
    id: item.id,
    status: item.status,
    role: 'assistant',
    content: item.status === 'in_progress' ? [] : [outputText(item.text)],
  };
}

function outputText(text: string) {
  return { type: 'output_text', text, annotations: [] };
}

// OpenAI counts cached tokens inside the input tokens; agentctl keeps them apart.
function usageOf(usage: UsageStats) {
  return {
    input_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.totalTokens,
  };
}

/**
 * Refuses what a request asks for that an agent cannot give, naming the parameter (answered anyway,
 * a client would take the agent's own tool calls for the functions it offered, or look for a
 * response that was never stored). Sampling settings stay the agent's own and are not refused.
 */
function refuseUnsupported(body: Record<string, unknown>, streamed: boolean): void {
  const refuse = (param: string, message: string) => {
    throw new HttpError(400, 'unsupported_parameter', message, {}, param);
  };
  if (Array.isArray(body.tools) ? body.tools.length > 0 : body.tools != null)
    refuse('tools', '`tools` is not supported: the agent calls its own tools, declared in its YAML');
  if (body.tool_choice != null && body.tool_choice !== 'auto' && body.tool_choice !== 'none')
    refuse(
      'tool_choice',
      '`tool_choice` must be "auto" or "none": a request offers the agent no tools of its own',
    );
  const format = (body.text as { format?: { type?: unknown } } | null | undefined)?.format;
  if (format != null && format.type !== 'text')
    refuse(
      'text.format',
      '`text.format` must be {"type": "text"}: an agent\'s output shape is its `output_schema`',
    );
  for (const param of ['previous_response_id', 'conversation'])
    if (body[param] != null)
      refuse(
        param,
        `\`${param}\` is not supported: no response is stored; send the ${SESSION_HEADER} header to continue a session`,
      );
  if (body.background === true)
    refuse('background', '`background` is not supported: a response is answered while its client waits');
  if (body.prompt != null) refuse('prompt', '`prompt` is not supported: the agent has its own instruction');
  if (body.stream_options != null && !streamed)
    refuse('stream_options', '`stream_options` is only allowed when `stream` is true');
}

/**
 * `input` as turns: a string is one user message; a list holds message items (`role` and
 * `content`, a string or text parts). System and developer messages are left out (the agent has its
 * own instruction), as is `instructions`; any other item or part is refused rather than dropped.
 */
function parseInput(input: unknown): Turn[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0)
    throw new HttpError(
      400,
      'bad_request',
      '`input` must be a string or a non-empty list of messages',
      {},
      'input',
    );
  const turns: Turn[] = [];
  input.forEach((raw, i) => {
    const item = (raw ?? {}) as { type?: unknown; role?: unknown; content?: unknown };
    const where = `input[${i}]`;
    if (item.type !== undefined && item.type !== 'message')
      throw new HttpError(
        400,
        'unsupported_parameter',
        `${where} is ${typeof item.type === 'string' ? `an item of type ${item.type}` : 'not an item'}: only messages are read (the agent calls its own tools)`,
        {},
        where,
      );
    if (item.role === 'system' || item.role === 'developer') return;
    if (item.role !== 'user' && item.role !== 'assistant')
      throw new HttpError(
        400,
        'bad_request',
        `${where}.role must be user, assistant, system or developer`,
        {},
        `${where}.role`,
      );
    turns.push({ role: item.role, content: contentText(item.content, where) });
  });
  return turns;
}

function contentText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new HttpError(
      400,
      'bad_request',
      `${where}.content must be a string or a list of text parts`,
      {},
      `${where}.content`,
    );
  // Only text reaches an agent: an image or a file would be dropped unseen, so it is refused instead.
  return content
    .map((part: { type?: unknown; text?: unknown } | null, j) => {
      const at = `${where}.content[${j}]`;
      if (part?.type !== 'input_text' && part?.type !== 'output_text')
        throw new HttpError(
          400,
          'bad_request',
          `${at} is ${typeof part?.type === 'string' ? `a part of type ${part.type}` : 'not a part'}: only text parts are read`,
          {},
          at,
        );
      if (typeof part.text !== 'string')
        throw new HttpError(400, 'bad_request', `${at}.text must be a string`, {}, `${at}.text`);
      return part.text;
    })
    .join('');
}
