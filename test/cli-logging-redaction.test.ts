import { afterAll, describe, expect, it } from 'vitest';
import { agentctl, parseNdjson, removeTempDirs, tempProject } from './support/cli.js';

afterAll(removeTempDirs);

const tool = `export default {
  name: 'lookup',
  description: 'Looks up a customer',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  execute: async () => 'customer mail carol@example.com, card 4111 1111 1111 1111, order ACME-777777',
};
`;

// The model asks for the customer, then answers with an address, an order id and the key of
// another model of the project (a secret); each agent logs verbosely and briefly, once outside
// its redaction and once inside it.
function project(order: 'logging-first' | 'redaction-first'): Record<string, string> {
  const logs = '  - { logging: { verbose: true } }\n  - { logging: {} }\n';
  const scrub = '  - scrub\n';
  return {
    'tools/lookup.ts': tool,
    '.env': 'BILLING_KEY=sk-billing-secret-0123456789\n',
    'agents/desk.yaml': `kind: model
name: talky
provider: offline
model: script
script:
  - tool_calls: [{ name: lookup, arguments: { id: "c-1" } }]
  - text: "Your mail is dave@example.com, order ACME-111111, key sk-billing-secret-0123456789"
---
kind: model
name: billing
provider: openai
model: gpt-4.1-mini
base_url: http://127.0.0.1:9/v1
api_key: \${BILLING_KEY}
---
kind: middleware
name: scrub
builtin: redaction
options: { patterns: ["ACME-\\\\d{6}"] }
---
kind: agent
name: desk
model: talky
instruction: Answer briefly.
tools: [{ module: ../tools/lookup.ts }]
middleware:
${order === 'logging-first' ? logs + scrub : scrub + logs}`,
  };
}

const SECRETS = ['example.com', '4111', 'ACME-', 'sk-billing-secret'];

describe('the logging middleware with a redaction on the same agent', () => {
  for (const order of ['logging-first', 'redaction-first'] as const) {
    it(`logs and shows nothing the redaction replaces, and logs no project secret (${order})`, async () => {
      const dir = await tempProject(project(order));
      const prompt = 'I am erin@example.com, my order is ACME-123456';
      const result = await agentctl(['run', 'desk', prompt, '--json'], { cwd: dir });
      expect(result.code).toBe(0);
      const log = result.stderr
        .split('\n')
        .filter((line) => line.startsWith('[desk]'))
        .join('\n');
      // Verbose and brief lines of each action: the prompt, the calls, the tool's result, the answer.
      expect(log).toContain('[desk] loop_start {"prompt":"I am [REDACTED], my order is [REDACTED]"}');
      expect(log).toContain('[desk] loop_start "I am [REDACTED], my order is [REDACTED]"');
      expect(log).toContain('customer mail [REDACTED], card [REDACTED], order [REDACTED]');
      expect(log).toContain('Your mail is [REDACTED], order [REDACTED], key ***');
      for (const secret of SECRETS) expect(log).not.toContain(secret);

      // The answer as it is shown (streamed text) is the redacted one too.
      const streamed = parseNdjson(result.stdout)
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.text)
        .join('');
      // The project's secret is hidden in the answer as well, shown or recorded.
      expect(streamed).toBe('Your mail is [REDACTED], order [REDACTED], key ***');
      expect(result.stdout).not.toContain('sk-billing-secret');
      const plain = await agentctl(['run', 'desk', prompt], { cwd: dir });
      expect(plain.stdout).toContain('Your mail is [REDACTED], order [REDACTED]');
      for (const secret of ['example.com', 'ACME-']) expect(plain.stdout).not.toContain(secret);

      // The session keeps the prompt as it was typed: the log's redaction changes no stored event.
      const id = /session ([0-9a-f-]{36})/.exec(result.stderr)?.[1];
      expect(id).toBeDefined();
      const shown = await agentctl(['sessions', 'show', id as string, '--json'], { cwd: dir });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(prompt);
    });
  }
});
