import { A2A_VERSION_HEADER, formatSSEEvent } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from '@a2a-js/sdk/server';
import { Hono } from 'hono';
import { agentCard, agentCardJson } from './a2a-card.js';
import { AgentctlExecutor } from './a2a-executor.js';
import { BoundedTaskStore, type TaskRetention } from './a2a-task-store.js';
import { boundedStream } from './bounded-stream.js';
import { HttpError } from './http-error.js';
import type { InvokeContext } from './invoke.js';
import { type PublicAddress, publicBase } from './public-address.js';
import { readJson } from './read-json.js';

interface A2AEndpoint {
  handler: DefaultRequestHandler;
  executor: AgentctlExecutor;
  current: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

/**
 * A2A for every agent on `@a2a-js/sdk`: the card at `/a2a/{agent}/.well-known/agent-card.json`
 * and JSON-RPC at `/a2a/{agent}` (protocol 1.0, and 0.3's `message/send` and friends when the
 * request says `A2A-Version: 0.3` or nothing). Tasks live in memory, ended ones for as long as
 * `retention` says; their sessions in the store. A card's `url` is at the address clients reach
 * the server at (`address`), which behind a proxy is not the one it listens on.
 */
export function a2aRoutes(
  context: InvokeContext,
  bearer: boolean,
  retention?: TaskRetention,
  address: PublicAddress = {},
): Hono {
  const app = new Hono();
  const endpoints = new Map<string, A2AEndpoint>();
  const infoOf = (name: string) => {
    const info = context.source.list().find((a) => a.name === name);
    if (!info) throw new HttpError(404, 'unknown_agent', `no agent named "${name}"`);
    return info;
  };
  const endpointOf = (name: string, origin: string): A2AEndpoint => {
    let endpoint = endpoints.get(name);
    if (!endpoint) {
      const card = agentCard(infoOf(name), origin, bearer);
      const executor = new AgentctlExecutor(name, context);
      const handler = new DefaultRequestHandler(card, new BoundedTaskStore(retention), executor);
      endpoint = {
        handler,
        executor,
        current: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
      endpoints.set(name, endpoint);
    }
    return endpoint;
  };

  app.get('/a2a/:agent/.well-known/agent-card.json', (c) =>
    c.json(agentCardJson(agentCard(infoOf(c.req.param('agent')), publicBase(c, address), bearer))),
  );

  app.post('/a2a/:agent', async (c) => {
    const name = c.req.param('agent');
    infoOf(name);
    const endpoint = endpointOf(name, publicBase(c, address));
    // A JSON-RPC client reads a JSON-RPC error (as the SDK's own server answers it), not this
    // server's error shape: -32700 for a body that is no JSON, -32600 for one that is no request
    // object (a batch included: A2A has none).
    let body: Record<string, unknown>;
    try {
      body = await readJson(c);
    } catch (error) {
      if (!(error instanceof HttpError) || error.code !== 'bad_json') throw error;
      const parse = error.message.startsWith('the body is not valid JSON');
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: parse
          ? { code: -32700, message: `Parse error: ${error.message}` }
          : { code: -32600, message: 'Invalid Request: the body must be one JSON-RPC request object' },
      });
    }
    const requested = c.req.header(A2A_VERSION_HEADER);
    const legacy = (requested || '0.3') === '0.3';
    const callContext = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: c.req.header(),
      requestedVersion: requested,
    });
    const mapError = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const failure = (error: unknown) =>
      c.json({
        jsonrpc: '2.0',
        id: (body.id as string | number | undefined) ?? null,
        error: mapError(error),
      });
    // A message to a task whose run is under way is refused, not run beside it.
    const taskId = messageTaskId(body);
    if (taskId !== undefined && !endpoint.executor.claim(taskId))
      return failure(
        new UnsupportedOperationError(
          `task ${taskId} is still working: send its next message once it has ended`,
        ),
      );
    const release = () => {
      if (taskId !== undefined) endpoint.executor.release(taskId);
    };
    let answer: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
    try {
      validateVersion(callContext.requestedVersion, await endpoint.handler.getAgentCard(), 'JSONRPC');
      answer = await (legacy ? endpoint.legacy : endpoint.current).handle(body, callContext);
    } catch (error) {
      release();
      return failure(error);
    }
    if (!(Symbol.asyncIterator in Object(answer))) {
      release();
      return c.json(answer as object);
    }
    const events = answer as AsyncGenerator<unknown>;
    // The task runs on when its client is cut off for not reading, as when it leaves: its events
    // are still read (the task store learns the outcome from them), only no longer sent.
    return boundedStream(c, context.streamLimit, async (out) => {
      try {
        for await (const event of events) out.write(formatSSEEvent(event));
      } catch (error) {
        out.write(
          formatSSEEvent({
            jsonrpc: '2.0',
            id: (body.id as string | number | undefined) ?? null,
            error: mapError(error),
          }),
        );
      } finally {
        release();
      }
    });
  });

  return app;
}

// The task a message continues (`params.message.taskId`, the same in 1.0 and 0.3), if any.
function messageTaskId(body: Record<string, unknown>): string | undefined {
  const message = (body.params as { message?: { taskId?: unknown } } | undefined)?.message;
  const id = message?.taskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
