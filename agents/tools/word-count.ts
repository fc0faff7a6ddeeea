import type { Tool } from '@agentctl/core';

/** Counts the words of a text: a module tool, loaded from TypeScript without a build step. */
export const wordCount = {
  name: 'word_count',
  description: 'Counts the words in a text',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count' } },
    required: ['text'],
  },
  execute: ({ text }: { text: string }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
} satisfies Tool<{ text: string }>;
