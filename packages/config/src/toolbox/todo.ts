import { type AnyTool, defineTool } from '@agentctl/core';

/** One task of the `todo` list. */
export interface TodoItem {
  id: number;
  title: string;
  status: 'pending' | 'in_progress' | 'done';
}

/** The session state key holding the list. */
export const TODO_STATE_KEY = 'todos';

const STATUSES = ['pending', 'in_progress', 'done'] as const;

interface TodoArgs {
  action: 'add' | 'update' | 'list' | 'clear_done';
  title?: string;
  id?: number;
  status?: TodoItem['status'];
}

/**
 * The `todo` built-in: a task list kept in the session's state (key `todos`), so it lasts as
 * long as the conversation and travels with it (resume, export).
 *
 * @example
 * createAgent({ name: 'worker', provider, tools: [todo()] });
 */
export function todo(): AnyTool {
  return defineTool<TodoArgs, string>({
    name: 'todo',
    description:
      'Keeps your task list for this conversation: add a task, update its status (pending, in_progress, done), list, or clear the done ones. Returns the list.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['add', 'update', 'list', 'clear_done'] },
        title: { type: 'string', minLength: 1, description: 'add: the task' },
        id: { type: 'integer', minimum: 1, description: 'update: the task number' },
        status: { type: 'string', enum: [...STATUSES], description: 'add, update: the status' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    execute({ action, title, id, status }, { state }) {
      const items = [...((state.get(TODO_STATE_KEY) as TodoItem[] | undefined) ?? [])];
      let next = items;
      if (action === 'add') {
        if (!title) throw new Error('add needs a title');
        const number = items.reduce((max, item) => Math.max(max, item.id), 0) + 1;
        next = [...items, { id: number, title, status: status ?? 'pending' }];
      } else if (action === 'update') {
        const at = items.findIndex((item) => item.id === id);
        if (at < 0)
          throw new Error(
            `there is no task ${id}; the tasks are ${items.map((i) => i.id).join(', ') || 'none'}`,
          );
        next = items.map((item, i) =>
          i === at ? { ...item, status: status ?? item.status, title: title ?? item.title } : item,
        );
      } else if (action === 'clear_done') next = items.filter((item) => item.status !== 'done');
      if (next !== items) state.set(TODO_STATE_KEY, next);
      return next.length === 0
        ? '[no tasks]'
        : next.map((i) => `${i.id}. [${i.status}] ${i.title}`).join('\n');
    },
  });
}
