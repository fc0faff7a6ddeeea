import { describe, expect, it } from 'vitest';
import { limitBody } from '../src/limit-body.js';

const tooLarge = () => new Error('too large');
const body = (...chunks: string[]) =>
  new Response(
    new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    }),
  );

describe('limitBody', () => {
  it('fails a body past the limit as it reads, and passes one within it', async () => {
    expect(await limitBody(body('12345', '67890'), 10, tooLarge).text()).toBe('1234567890');
    await expect(limitBody(body('12345', '678901'), 10, tooLarge).text()).rejects.toThrow('too large');
  });

  it('per event, counts from each blank line (LF, CRLF or CR twice), split across chunks or not', async () => {
    const events = ['data: 1234\n\n', 'data: 5678\r', '\n\r\ndata: abcd\r\r', 'data: ef', 'gh\n\n'];
    expect(await limitBody(body(...events), 12, tooLarge, { perEvent: true }).text()).toBe(events.join(''));
    // One line break is no blank line: the two lines are one event, past the limit.
    await expect(
      limitBody(body('data: 1234\n', 'data: 5678\n\n'), 12, tooLarge, { perEvent: true }).text(),
    ).rejects.toThrow('too large');
  });
});
