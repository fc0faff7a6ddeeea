import type { Message } from './messages.js';

/** Keeps conversations between runs, by session id. */
export interface MemoryProvider {
  /** The conversation saved under `sessionId`, or an empty list. */
  load(sessionId: string): Promise<Message[]>;
  /** Replaces the conversation saved under `sessionId`. */
  save(sessionId: string, messages: readonly Message[]): Promise<void>;
  /** Forgets the conversation saved under `sessionId`. */
  clear(sessionId: string): Promise<void>;
}

/** A {@link MemoryProvider} that lives in this process and is gone when it exits. */
export class InMemoryMemory implements MemoryProvider {
  readonly #sessions = new Map<string, Message[]>();

  async load(sessionId: string): Promise<Message[]> {
    return structuredClone(this.#sessions.get(sessionId) ?? []);
  }

  async save(sessionId: string, messages: readonly Message[]): Promise<void> {
    this.#sessions.set(sessionId, structuredClone([...messages]));
  }

  async clear(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
  }
}
