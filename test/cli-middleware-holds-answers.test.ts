import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

// The answer streams word by word: the code is split across chunks, as a provider splits it.
const AGENTS = `kind: model
name: talky
provider: offline
model: script
script:
  - text: The code is ACME 1234 5678 today.
    delay_ms: 1
    fallback: true
---
kind: middleware
name: mask
module: ../mw/mask.js
---
kind: middleware
name: plain_mask
module: ../mw/plain-mask.js
---
kind: agent
name: factory
model: talky
middleware: [mask]
---
kind: agent
name: direct
model: talky
middleware: [plain_mask]
`;

const MASK = `async function mask(action, next) {
  const result = await next();
  if (result.type !== 'model_response' || result.payload.response.content === null) return result;
  const response = result.payload.response;
  const content = response.content.replace(/ACME[\\d ]+\\d/g, '[code]');
  return { ...result, payload: { ...result.payload, response: { ...response, content } } };
}
mask.holdsAnswers = true;
`;

describe("a project's module middleware that rewrites answers (holdsAnswers)", () => {
  it('holds the streamed text until it has rewritten the answer, made by a factory or exported as is', async () => {
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'mw/mask.js': `export default function make() {\n${MASK}  return mask;\n}\n`,
      'mw/plain-mask.js': `${MASK}export default mask;\n`,
    });
    for (const agent of ['factory', 'direct']) {
      const text = await agentctl(['run', agent, 'hi'], { cwd: dir });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toBe('The code is [code] today.\n');
      const json = await agentctl(['run', agent, 'hi', '--json'], { cwd: dir });
      const deltas = parseNdjson(json.stdout).filter((e) => e.type === 'text_delta');
      expect(deltas.map((e) => e.text)).toEqual(['The code is [code] today.']);
    }
  });
});
