import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/sse-parser.js';

describe('SseParser', () => {
  it('yields events as their blank line arrives, however the stream is cut', () => {
    const text =
      'event: text_delta\ndata: {"text":"he"}\n\n: heartbeat\n\nevent: run_end\r\ndata: {"a":1}\r\n\r\n';
    // Every cut point, CRLF split in the middle included.
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.feed(text.slice(0, cut)), ...parser.feed(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'text_delta', data: '{"text":"he"}' },
        { event: 'run_end', data: '{"a":1}' },
      ]);
    }
  });

  it('joins data lines, defaults the name to message, and skips comments, ids and empty events', () => {
    const parser = new SseParser();
    expect(parser.feed('id: 7\ndata: one\ndata:two\n\n\n\nretry: 5\n: hi\ndata\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: '' },
    ]);
    expect(parser.feed('event: x\n\ndata: y\n\n')).toEqual([{ event: 'message', data: 'y' }]);
  });
});
