import { defineTool } from '../../src/index.js';

/** Adds two numbers. */
export const add = defineTool<{ a: number; b: number }>({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: ({ a, b }) => a + b,
});

/** A tool that waits until aborted or `ms` passes, recording when it starts and ends. */
export function sleeper(name: string, ms: number, log: string[] = []) {
  return defineTool<Record<string, never>>({
    name,
    description: `waits ${ms} ms`,
    parameters: { type: 'object', properties: {} },
    execute: (_args, { signal }) =>
      new Promise((resolve, reject) => {
        log.push(`start ${name}`);
        const timer = setTimeout(() => {
          log.push(`end ${name}`);
          resolve(`${name} done`);
        }, ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log.push(`abort ${name}`);
          reject(signal.reason);
        });
      }),
  });
}
