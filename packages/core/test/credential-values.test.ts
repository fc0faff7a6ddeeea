import { describe, expect, it } from 'vitest';
import { credentialValues, urlCredentials } from '../src/index.js';

describe('credentialValues', () => {
  it('takes the values of credential headers, also without their scheme, and leaves the others', () => {
    expect(
      credentialValues({
        'Helicone-Auth': 'Bearer sk-helicone-1',
        'api-key': 'azure-key-2',
        'OpenAI-Beta': 'assistants=v2',
        'X-Title': 'my app',
      }),
    ).toEqual(['Bearer sk-helicone-1', 'sk-helicone-1', 'azure-key-2']);
  });

  it('takes the user and password of a base URL, as written and decoded', () => {
    expect(credentialValues({}, 'http://bob:p%40ss-word@127.0.0.1:8080/v1')).toEqual([
      'p%40ss-word',
      'p@ss-word',
      'bob',
      'bob',
    ]);
    expect(credentialValues({}, 'http://127.0.0.1:8080/v1')).toEqual([]);
    expect(credentialValues({}, 'http://127.0.0.1:8080/v1?api-version=1&key=gw-secret-1')).toEqual([
      'gw-secret-1',
    ]);
  });
});

describe('urlCredentials', () => {
  it('takes the password as written and decoded, and credential query values, the user only when asked', () => {
    const url = 'https://ada:p%40ss-1@db.local/x?api_key=k-123&page=2';
    expect(urlCredentials(url)).toEqual(['p%40ss-1', 'p@ss-1', 'k-123']);
    expect(urlCredentials(url, { user: true })).toEqual(['p%40ss-1', 'p@ss-1', 'ada', 'ada', 'k-123']);
    expect(urlCredentials('not a url at all')).toEqual([]);
  });

  it('keeps a password with a stray percent sign instead of dropping every credential of the URL', () => {
    // decodeURIComponent throws on `%zz`; the password and the key must still be hidden.
    expect(urlCredentials('https://u:pw%zz-secret@h/?token=t-456')).toEqual([
      'pw%zz-secret',
      'pw%zz-secret',
      't-456',
    ]);
    expect(credentialValues({}, 'https://u:pw%zz-secret@h/?token=t-456')).toContain('pw%zz-secret');
  });
});
