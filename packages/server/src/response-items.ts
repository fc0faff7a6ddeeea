import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '@agentctl/core';

/** One message item of a response: the text one agent of the run said in one model message. */
export interface ResponseMessageItem {
  id: string;
  text: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

/** What {@link ResponseItems} tells as it goes: a stream sends each as its Responses event. */
export interface ResponseItemsSink {
  added(item: ResponseMessageItem, index: number): void;
  delta(item: ResponseMessageItem, index: number, text: string): void;
  done(item: ResponseMessageItem, index: number): void;
}

const SILENT: ResponseItemsSink = { added() {}, delta() {}, done() {} };

/**
 * A run's events as the message items of one response, the same streamed or not: one item per
 * message the agents of the run's own invocation said (text before a tool call, each agent of a
 * pipeline or of a parallel workflow), each item's deltas adding up to its text. What an agent tool's
 * own run says is no part of the answer (its result is), so the events of other invocations are
 * left out.
 */
export class ResponseItems {
  readonly items: ResponseMessageItem[] = [];
  readonly #sink: ResponseItemsSink;
  #invocationId: string | undefined;
  // The item each agent (by branch) is saying now: agents of a parallel workflow speak at once.
  readonly #open = new Map<string, ResponseMessageItem>();
  // The conversation a request sends comes first as messages of the invocation: not said by it.
  #started = false;

  constructor(sink: ResponseItemsSink = SILENT) {
    this.#sink = sink;
  }

  /** Reads one event of the run. */
  read(event: AgentEvent): void {
    this.#invocationId ??= event.invocationId;
    if (event.invocationId !== this.#invocationId) return;
    if (event.type === 'agent_start') this.#started = true;
    if (!this.#started) return;
    if (event.type === 'text_delta') {
      if (event.text === '') return;
      this.#append(this.#open.get(event.branch) ?? this.#openItem(event.branch), event.text);
    } else if (event.type === 'message' && event.message.role === 'assistant') {
      // The message's text is what its deltas said, or all of it when none came (a held answer).
      const content = event.message.content ?? '';
      const open = this.#open.get(event.branch);
      if (!open && content === '') return;
      const item = open ?? this.#openItem(event.branch);
      if (content.length > item.text.length && content.startsWith(item.text))
        this.#append(item, content.slice(item.text.length));
      this.#close(event.branch, event.message.cutShort ? 'incomplete' : 'completed');
    }
  }

  /**
   * Ends the items with the run's answer: an item already saying it, else an item of its own (an
   * answer no message said as it is, such as a structured output).
   * `status` is the answer item's (`incomplete` when the model was cut short).
   */
  finish(output: string, status: 'completed' | 'incomplete'): void {
    for (const branch of [...this.#open.keys()]) this.#close(branch, 'completed');
    if (output === '' || this.items.some((item) => item.text === output)) return;
    const item = this.#openItem('');
    this.#append(item, output);
    this.#close('', status);
  }

  /** Ends the items of a run that failed: those still being said stop where they are, `incomplete`. */
  fail(): void {
    for (const branch of [...this.#open.keys()]) this.#close(branch, 'incomplete');
  }

  #openItem(branch: string): ResponseMessageItem {
    const item: ResponseMessageItem = {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      text: '',
      status: 'in_progress',
    };
    this.items.push(item);
    this.#open.set(branch, item);
    this.#sink.added(item, this.items.length - 1);
    return item;
  }

  #append(item: ResponseMessageItem, text: string): void {
    item.text += text;
    this.#sink.delta(item, this.items.indexOf(item), text);
  }

  #close(branch: string, status: 'completed' | 'incomplete'): void {
    const item = this.#open.get(branch)!;
    this.#open.delete(branch);
    item.status = status;
    this.#sink.done(item, this.items.indexOf(item));
  }
}
