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
    async execute({ action, note, query, id }, { state }) {
      // Remember and forget change the latest list, under the store's lock: runs of the same user at
      // the same time each keep their note, and no two notes get the same number.
      if (action === 'remember') {
        if (!note) throw new Error('remember needs a note');
        let number = 0;
        await state.update(MEMORY_STATE_KEY, (current) => {
          const notes = notesOf(current);
          number = notes.reduce((max, n) => Math.max(max, n.id), 0) + 1;
          return [...notes, { id: number, note, time: new Date().toISOString() }].slice(-maxNotes);
        });
        return `remembered as note ${number}`;
      }
      if (action === 'forget') {
        await state.update(MEMORY_STATE_KEY, (current) => {
          const notes = notesOf(current);
          if (!notes.some((n) => n.id === id)) throw new Error(`there is no note ${id}`);
          return notes.filter((n) => n.id !== id);
        });
        return `forgot note ${id}`;
      }
      const notes = notesOf(state.get(MEMORY_STATE_KEY));
      const found = query ? notes.filter((n) => n.note.toLowerCase().includes(query.toLowerCase())) : notes;
      return found.length === 0 ? '[no notes]' : found.map((n) => `${n.id}. ${n.note}`).join('\n');
    },
  });
}

// The notes as stored; anything else under the key (a hand-edited state) is left alone, not overwritten.
function notesOf(value: unknown): MemoryNote[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new Error(`the state key ${MEMORY_STATE_KEY} holds something other than a list of notes`);
  return value as MemoryNote[];
}
