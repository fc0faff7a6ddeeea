import { describe, expect, it } from 'vitest';
import { credentialValues } from '../src/index.js';

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
