import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, type Artifact, formatSSEEvent, type Message, Role, type TaskState } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';

/**
 * One agent of {@link startA2AServer}: what its executor publishes for a message (on the SDK's
 * own request handler), or `card: 'never'` for a server that never answers for its card, or
 * `stream: 'silent'` for one that opens the event stream and then sends only keep-alive comments.
 */
export interface A2AAgentBehaviour {
  /** Speaks only A2A 0.3: a 0.3 card (`url`, `protocolVersion`, no `supportedInterfaces`) and method names. */
  legacy?: boolean;
  /** Says so in the card: the SDK's client then sends `message/send` and reads one whole task. */
  streaming?: boolean;
  card?: 'never';
  stream?: 'silent';
  /** The endpoint its card names (default: its own `/a2a/{name}` on this server). */
  endpoint?: string;
  /** Answers every request with a 307 to this address. */
  redirect?: string;
  /** Answers every message with this HTTP failure (a proxy's error page in front of the agent). */
  failure?: { status: number; type: string; body: string };
  /** Answers its card, or a message, with a JSON body that goes on for {@link ENDLESS_BYTES} (until the client hangs up). */
  endless?: 'card' | 'answer';
  execute?: (request: RequestContext, bus: ExecutionEventBus, say: A2ASay) => void | Promise<void>;
}

/** Builders for the events an executor publishes, bound to its request's task and context. */
export interface A2ASay {
  task(state: TaskState, artifacts?: Artifact[], text?: string): void;
  status(state: TaskState, text?: string): void;
  artifact(artifactId: string, text: string): void;
}

/** An A2A server on 127.0.0.1 built from `@a2a-js/sdk`'s server pieces. */
export interface A2AServer {
  /** `http://127.0.0.1:PORT`; each agent's endpoint is `${url}/a2a/${name}`. */
  url: string;
  /** The query string of every request, in order (`''` for none). */
  queries: string[];
  /** The `x-api-key` header of every request, in order (`''` for none). */
  keys: string[];
  /** Bytes each agent's endless body handed to its socket before the client hung up (or all of them). */
  sent: Record<string, number>;
  close(): Promise<void>;
}

/** How long an "endless" body is: far more than any client should read, and still an end. */
export const ENDLESS_BYTES = 128 * 2 ** 20;

// Writes `head`, then `x` as fast as the client reads, until ENDLESS_BYTES or the client hangs up.
function sendEndless(
  res: ServerResponse,
  head: string,
  tail: string,
  counted: (bytes: number) => void,
): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(head);
  const chunk = 'x'.repeat(64 * 1024);
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
    counted(sent);
  });
  const pump = () => {
    while (!closed && sent < ENDLESS_BYTES) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!closed) res.end(tail);
  };
  pump();
}

/** A text artifact as a server hands it over. */
export function textArtifact(artifactId: string, text: string): Artifact {
  return {
    artifactId,
    name: 'answer',
    description: '',
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

function textPart(text: string) {
  return {
    content: { $case: 'text' as const, value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

function agentMessage(text: string, contextId: string, taskId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sayFor(request: RequestContext, bus: ExecutionEventBus): A2ASay {
  const { taskId, contextId } = request;
  const status = (state: TaskState, text?: string) => ({
    state,
    message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
    timestamp: new Date().toISOString(),
  });
  return {
    task: (state, artifacts = [], text = undefined) =>
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(state, text),
          artifacts,
          history: [],
          metadata: undefined,
        }),
      ),
    status: (state, text) =>
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: status(state, text), metadata: undefined }),
      ),
    artifact: (artifactId, text) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: textArtifact(artifactId, text),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      ),
  };
}

/** Starts an A2A server with one JSON-RPC endpoint and card per agent of `agents`. */
export async function startA2AServer(agents: Record<string, A2AAgentBehaviour>): Promise<A2AServer> {
  const handlers = new Map<string, JsonRpcTransportHandler | LegacyJsonRpcTransportHandler>();
  const queries: string[] = [];
  const sent: Record<string, number> = {};
  const keys: string[] = [];
  let url = '';
  const cardOf = (name: string, behaviour: A2AAgentBehaviour) => ({
    name,
    description: name,
    supportedInterfaces: [
      {
        url: behaviour.endpoint ?? `${url}/a2a/${name}`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: undefined,
    version: '1',
    capabilities: {
      streaming: behaviour.streaming ?? true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  });
  const handlerOf = (name: string, behaviour: A2AAgentBehaviour) => {
    let handler = handlers.get(name);
    if (!handler) {
      const executor: AgentExecutor = {
        execute: async (request, bus) => {
          await behaviour.execute?.(request, bus, sayFor(request, bus));
          bus.finished();
        },
        cancelTask: async () => {},
      };
      const requests = new DefaultRequestHandler(
        cardOf(name, behaviour) as AgentCard,
        new InMemoryTaskStore(),
        executor,
      );
      handler = behaviour.legacy
        ? new LegacyJsonRpcTransportHandler(requests)
        : new JsonRpcTransportHandler(requests);
      handlers.set(name, handler);
    }
    return handler;
  };
  const server: Server = createServer(async (req, res) => {
    const asked = new URL(req.url ?? '/', 'http://127.0.0.1');
    queries.push(asked.search);
    keys.push(String(req.headers['x-api-key'] ?? ''));
    const [, , name = '', ...rest] = asked.pathname.split('/');
    const behaviour = agents[name];
    const card = rest.join('/') === '.well-known/agent-card.json';
    if (!behaviour || (req.method === 'GET') !== card || (!card && rest.length > 0)) {
      res.writeHead(404).end();
      return;
    }
    if (behaviour.redirect) {
      res.writeHead(307, { location: behaviour.redirect }).end();
      return;
    }
    if (req.method === 'GET') {
      if (behaviour.card === 'never') return;
      if (behaviour.endless === 'card')
        return sendEndless(res, `{"name":"${name}","description":"`, '"}', (n) => {
          sent[name] = n;
        });
      const v1 = AgentCard.toJSON(cardOf(name, behaviour) as AgentCard) as Record<string, unknown>;
      const { supportedInterfaces: _, ...rest } = v1;
      const legacyCard = {
        ...rest,
        skills: [],
        url: behaviour.endpoint ?? `${url}/a2a/${name}`,
        protocolVersion: '0.3.0',
        preferredTransport: 'JSONRPC',
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(behaviour.legacy ? legacyCard : v1));
      return;
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    if (behaviour.failure) {
      res.writeHead(behaviour.failure.status, { 'content-type': behaviour.failure.type });
      res.end(behaviour.failure.body);
      return;
    }
    if (behaviour.endless === 'answer') {
      const id = JSON.stringify((JSON.parse(body) as { id?: unknown }).id ?? null);
      return sendEndless(res, `{"jsonrpc":"2.0","id":${id},"result":{"padding":"`, '"}}', (n) => {
        sent[name] = n;
      });
    }
    if (behaviour.stream === 'silent') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ping = setInterval(() => res.write(': still here\n\n'), 100);
      res.on('close', () => clearInterval(ping));
      return;
    }
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: req.headers as Record<string, string>,
      requestedVersion: req.headers['a2a-version'] as string | undefined,
    });
    const answer = await handlerOf(name, behaviour).handle(JSON.parse(body), context);
    if (Symbol.asyncIterator in Object(answer)) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for await (const event of answer as AsyncIterable<unknown>) res.write(formatSSEEvent(event));
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    queries,
    keys,
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
