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

/** A `refund` tool that needs approval and records each order it refunds in `ran`. */
export function approvalRefund(ran: string[]) {
  return defineTool<{ order: string }>({
    name: 'refund',
    description: 'refunds',
    parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    needsApproval: true,
    execute: ({ order }) => {
      ran.push(order);
      return `refunded ${order}`;
    },
  });
}

/** An `ask_user` tool that asks a human "Which size?" through `requestInput`. */
export const askSize = defineTool({
  name: 'ask_user',
  description: 'asks',
  parameters: {},
  execute: (_args, context) => context.requestInput('Which size?'),
});
