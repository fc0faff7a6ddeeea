import { type AnyTool, defineTool } from '@agentctl/core';

/** One note of the `memory` tool. */
export interface MemoryNote {
  id: number;
  note: string;
  time: string;
}

/** The state key of the notes: `user:` scoped, so every session of the same user sees them. */
export const MEMORY_STATE_KEY = 'user:memories';

interface MemoryArgs {
  action: 'remember' | 'recall' | 'forget';
  note?: string;
  query?: string;
  id?: number;
}

/** Options of {@link memory}. */
export interface MemoryToolOptions {
  /** Notes kept at most; the oldest go first. Default 200. */
  maxNotes?: number;
}

/**
 * The `memory` built-in: notes kept per user in the session store's `user:` state, so they
 * survive the session (run with `--user ID`; without a user they last one session).
 *
 * @example
 * createAgent({ name: 'assistant', provider, tools: [memory({ maxNotes: 100 })] });
 */
export function memory(options: MemoryToolOptions = {}): AnyTool {
  const maxNotes = options.maxNotes ?? 200;
  return defineTool<MemoryArgs, string>({
    name: 'memory',
    description:
      'Long-term notes about the user that last across conversations: remember a note, recall notes (all, or those containing a text), forget one by number.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['remember', 'recall', 'forget'] },
        note: { type: 'string', minLength: 1, description: 'remember: the note' },
        query: { type: 'string', description: 'recall: only notes containing this text' },
        id: { type: 'integer', minimum: 1, description: 'forget: the note number' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    execute({ action, note, query, id }, { state }) {
      const notes = (state.get(MEMORY_STATE_KEY) as MemoryNote[] | undefined) ?? [];
      if (action === 'remember') {
        if (!note) throw new Error('remember needs a note');
        const number = notes.reduce((max, n) => Math.max(max, n.id), 0) + 1;
        state.set(
          MEMORY_STATE_KEY,
          [...notes, { id: number, note, time: new Date().toISOString() }].slice(-maxNotes),
        );
        return `remembered as note ${number}`;
      }
      if (action === 'forget') {
        if (!notes.some((n) => n.id === id)) throw new Error(`there is no note ${id}`);
        state.set(
          MEMORY_STATE_KEY,
          notes.filter((n) => n.id !== id),
        );
        return `forgot note ${id}`;
      }
      const found = query ? notes.filter((n) => n.note.toLowerCase().includes(query.toLowerCase())) : notes;
      return found.length === 0 ? '[no notes]' : found.map((n) => `${n.id}. ${n.note}`).join('\n');
    },
  });
}
