import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, BIN, cliEnv, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';
import { waitFor } from './support/wait-for.js';

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

  // Under --watch (and dev) module middleware runs in a worker: the flag crosses over with it.
  it('holds it too when the middleware runs in the module worker of run --watch', async () => {
    const dir = await tempProject({
      'agents/a.yaml': AGENTS,
      'mw/mask.js': `export default function make() {\n${MASK}  return mask;\n}\n`,
      'mw/plain-mask.js': `${MASK}export default mask;\n`,
    });
    for (const agent of ['factory', 'direct']) {
      const child = spawn(process.execPath, [BIN, 'run', agent, 'hi', '--watch'], {
        cwd: dir,
        env: cliEnv(),
        stdio: 'pipe',
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      const exited = new Promise((resolve) => child.on('close', resolve));
      try {
        await waitFor(() => output.includes('── run on generation 1 ended'), 'the run ended', 20_000);
      } finally {
        child.kill('SIGINT');
        await exited;
      }
      expect(output, agent).toContain('The code is [code] today.');
      expect(output, agent).not.toContain('ACME');
    }
  });
});
