import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { RemoteAgentSpec } from '@agentctl/config';
import { type Agent, AgentError, type InvocationContext } from '@agentctl/core';
import { textMessage, textOf } from './a2a-parts.js';

/**
 * A remote agent (`type: a2a`) in a local tree: each turn sends the invocation's input to the
 * remote agent as one A2A message (the local session id is the A2A context id, so the remote keeps
 * the conversation), streams its answer as this agent's text, and ends with its final answer. A
 * remote `input-required` ends the turn with the remote's question; the next message of the same
 * session answers that task.
 *
 * @example
 * registry.registerRemoteAgent('a2a', (spec) => a2aRemoteAgent(spec));
 */
export function a2aRemoteAgent(spec: RemoteAgentSpec): Agent {
  return new A2ARemoteAgent(spec);
}

class A2ARemoteAgent implements Agent {
  readonly type = 'a2a' as const;
  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly Agent[] = [];
  parent?: Agent;
  readonly #spec: RemoteAgentSpec;
  #client: Promise<Client> | undefined;
  // Remote tasks waiting for input, by context (session) id: the next message continues them.
  readonly #waiting = new Map<string, string>();

  constructor(spec: RemoteAgentSpec) {
    this.#spec = spec;
    this.name = spec.name;
    this.description = spec.description;
  }

  async runInvocation(ctx: InvocationContext): Promise<void> {
    if (ctx.consumeReplay()) return;
    ctx.emit('agent_start', { agent: this.name });
    const contextId = ctx.session.id;
    let output = '';
    let final = '';
    let state: TaskState | undefined;
    let taskId = this.#waiting.get(contextId) ?? '';
    try {
      const client = await this.#connect();
      const stream = client.sendMessageStream(
        {
          tenant: '',
          configuration: undefined,
          metadata: undefined,
          message: textMessage('user', ctx.shared.input, contextId, taskId),
        },
        { signal: ctx.signal },
      );
      for await (const event of stream) {
        const update = read(event);
        if (update.taskId) taskId = update.taskId;
        if (update.text) {
          output += update.text;
          ctx.emit('text_delta', { text: update.text });
        }
        if (update.state !== undefined) {
          state = update.state;
          final = update.message ?? final;
        }
      }
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new AgentError(
        `remote agent ${this.name} at ${this.#spec.url}: ${(error as Error).message}`,
        'PROVIDER_ERROR',
        {
          cause: error,
        },
      );
    }
    if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_REJECTED)
      throw new AgentError(
        `remote agent ${this.name} failed: ${final || 'no reason given'}`,
        'PROVIDER_ERROR',
      );
    if (state === TaskState.TASK_STATE_CANCELED)
      throw new AgentError(`remote agent ${this.name} cancelled its task`, 'ABORTED');
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      this.#waiting.set(contextId, taskId);
      output = final;
    } else {
      this.#waiting.delete(contextId);
      if (!output) output = final;
    }
    ctx.emit('message', { message: { role: 'assistant', content: output } });
    ctx.emit('agent_end', { agent: this.name, output });
  }

  #connect(): Promise<Client> {
    if (!this.#client) {
      const headers = this.#spec.headers;
      const fetchImpl: typeof fetch = (input, init = {}) =>
        fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), ...headers } });
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      const url = this.#spec.url.replace(/\/+$/, '');
      this.#client = factory.createFromUrl(`${url}/.well-known/agent-card.json`, '');
      // A failed connection is tried again on the next turn.
      this.#client.catch(() => {
        this.#client = undefined;
      });
    }
    return this.#client;
  }
}

function read(event: StreamResponse): {
  taskId?: string;
  text?: string;
  state?: TaskState;
  message?: string;
} {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return { taskId: payload.value.id };
    case 'artifactUpdate':
      return { text: textOf(payload.value.artifact?.parts ?? []) };
    case 'statusUpdate': {
      const state = payload.value.status?.state;
      const working = state === TaskState.TASK_STATE_WORKING || state === TaskState.TASK_STATE_SUBMITTED;
      return working ? {} : { state, message: textOf(payload.value.status?.message?.parts ?? []) };
    }
    case 'message':
      return { text: textOf(payload.value.parts), state: TaskState.TASK_STATE_COMPLETED };
    default:
      return {};
  }
}
