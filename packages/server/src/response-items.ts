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
 * pipeline), each item's deltas adding up to its text, and the answer last. What an agent tool's
 * own run says is no part of the answer (its result is), so the events of other invocations are
 * left out.
 */
export class ResponseItems {
  readonly items: ResponseMessageItem[] = [];
  readonly #sink: ResponseItemsSink;
  #invocationId: string | undefined;
  #open: { item: ResponseMessageItem; branch: string } | undefined;
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
      if (this.#open?.branch !== event.branch) this.#openItem(event.branch);
      this.#append(event.text);
    } else if (event.type === 'message' && event.message.role === 'assistant') {
      // The message's text is what its deltas said, or all of it when none came (a held answer).
      const content = event.message.content ?? '';
      const open = this.#open?.branch === event.branch ? this.#open : undefined;
      if (!open && content === '') return;
      if (!open) this.#openItem(event.branch);
      const streamed = this.#open!.item.text;
      if (content.length > streamed.length && content.startsWith(streamed))
        this.#append(content.slice(streamed.length));
      this.#close(event.message.cutShort ? 'incomplete' : 'completed');
    }
  }

  /**
   * Ends the items with the run's answer: the last item when it says it, else an item of its own
   * (an answer no message said as it is: a structured output, a merge of parallel branches).
   * `status` is the answer item's (`incomplete` when the model was cut short).
   */
  finish(output: string, status: 'completed' | 'incomplete'): void {
    if (this.#open) this.#close('completed');
    const last = this.items.at(-1);
    if (output !== '' && last?.text !== output) {
      this.#openItem('');
      this.#append(output);
      this.#close(status);
    }
  }

  #openItem(branch: string): void {
    if (this.#open) this.#close('completed');
    const item: ResponseMessageItem = {
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      text: '',
      status: 'in_progress',
    };
    this.items.push(item);
    this.#open = { item, branch };
    this.#sink.added(item, this.items.length - 1);
  }

  #append(text: string): void {
    const item = this.#open!.item;
    item.text += text;
    this.#sink.delta(item, this.items.length - 1, text);
  }

  #close(status: 'completed' | 'incomplete'): void {
    const item = this.#open!.item;
    this.#open = undefined;
    item.status = status;
    this.#sink.done(item, this.items.indexOf(item));
  }
}
