import { describe, expect, it } from 'vitest';
import { errorText, messageWithCause } from '../src/index.js';

describe('errorText', () => {
  it('reduces an HTML page to its title, else its first heading, else its words', () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>h1 { color: red }</style></head><body><h1>Bad</h1>${'x'.repeat(5000)}</body></html>`;
    expect(errorText(`502 ${page}`, 502)).toBe('HTML page: 502 Bad Gateway');
    expect(errorText('<html><body><h1>Oops</h1><p>bad</p></body></html>')).toBe('HTML page: Oops');
    expect(errorText('<html><body>\n  nothing   but words\n</body></html>')).toBe(
      'HTML page: nothing but words',
    );
  });

  it('keeps the wording before the page', () => {
    expect(errorText('Error POSTing to endpoint: <html><head><title>Gone</title></head></html>')).toBe(
      'Error POSTing to endpoint: HTML page: Gone',
    );
  });

  it('leaves a message that only quotes a tag as it is', () => {
    expect(errorText("Invalid value '<html>' for messages[0].content")).toBe(
      "Invalid value '<html>' for messages[0].content",
    );
  });

  it('cuts a long text at 300 characters, saying how long it was', () => {
    expect(errorText('y'.repeat(1000))).toBe(`${'y'.repeat(300)}… (1000 characters)`);
    expect(errorText('short')).toBe('short');
  });
});

describe('messageWithCause', () => {
  it("adds the innermost cause's message, or its code when the message is OpenSSL's long line", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9999'), { code: 'ECONNREFUSED' });
    const wrapped = new Error('Connection error.', {
      cause: new TypeError('fetch failed', { cause: refused }),
    });
    expect(messageWithCause(wrapped)).toBe('Connection error: connect ECONNREFUSED 127.0.0.1:9999');
    const tls = Object.assign(new Error(`80BC:error:0A00010B:SSL routines:${'x'.repeat(150)}`), {
      code: 'ERR_SSL_WRONG_VERSION_NUMBER',
    });
    expect(messageWithCause(new Error('fetch failed', { cause: tls }))).toBe(
      'fetch failed: ERR_SSL_WRONG_VERSION_NUMBER',
    );
    expect(messageWithCause(new Error('plain'))).toBe('plain');
  });
});
