import { describe, expect, it } from 'vitest';
import { Secrets } from '../src/env/secrets.js';

const hidden = (secrets: Secrets, text: string) => secrets.scrub(text);

describe('Secrets.offer', () => {
  it('keeps a value its variable, field, flag or preceding word names a credential', () => {
    const secrets = new Secrets();
    secrets.offer('hunter22', ['DB_PASS']);
    secrets.offer('abcd-1', [undefined, 'X-Api-Key']);
    secrets.offer('flagval', ['V', 'argv', '--token']);
    secrets.offer('wordval', ['V', 'headers', undefined, 'Bearer']);
    secrets.offer('pwval', ['SMTP_PWD']);
    expect(hidden(secrets, 'hunter22 abcd-1 flagval wordval pwval')).toBe('*** *** *** *** ***');
  });

  it('keeps a key-like value and the key-like pieces of any value', () => {
    const secrets = new Secrets();
    secrets.offer('https://hooks.example.com/services/T0001/B0002/Xq7kP2mN9vR4sT8wYz3a', ['WEBHOOK']);
    secrets.offer('8f3a9c2e71b4d5f6a0b1', ['OPAQUE']);
    expect(hidden(secrets, 'token Xq7kP2mN9vR4sT8wYz3a and 8f3a9c2e71b4d5f6a0b1')).toBe('token *** and ***');
    expect(hidden(secrets, 'https://hooks.example.com/services/T0001/B0002/Xq7kP2mN9vR4sT8wYz3a')).toBe(
      '***',
    );
  });

  it("keeps a URL's password and credential query values", () => {
    const secrets = new Secrets();
    secrets.offer('postgres://app:pa55word@db.internal:5432/app', ['DATABASE_URL']);
    secrets.offer('https://search.example.com/v1?q=x&key=k9k9', ['SEARCH_URL']);
    expect(hidden(secrets, 'pa55word k9k9 db.internal')).toBe('*** *** db.internal');
  });

  it('leaves a value nothing says is a credential readable', () => {
    const secrets = new Secrets();
    secrets.offer('debug', ['LOG_LEVEL', 'env', undefined, '']);
    secrets.offer('notes', ['NOTES_DIR', 'argv', 'ls']);
    secrets.offer('/root', ['HOME']);
    secrets.offer('/work/project', ['PWD']);
    secrets.offer('localhost:11434', ['LLM_HOST', 'base_url', undefined, 'http:']);
    secrets.offer('8080', ['PORT']);
    secrets.offer('passthrough', ['PROXY_MODE']);
    expect(secrets.size).toBe(0);
    expect(hidden(secrets, 'debug the notes in /root on localhost:11434 port 8080')).toBe(
      'debug the notes in /root on localhost:11434 port 8080',
    );
  });
});
