/** The project templates of `agentctl init --template`. */
export const TEMPLATES = ['single', 'team', 'pipeline', 'mcp'] as const;

/** One template name. */
export type TemplateName = (typeof TEMPLATES)[number];

/** What a template adds to the files every project gets. */
export interface Template {
  /** Files by path relative to the project folder. */
  files: Record<string, string>;
  /** The agent the `next:` lines run, and a prompt it answers offline. */
  agent: string;
  prompt: string;
  /** npm packages the project needs besides agentctl's (name -> range), as devDependencies. */
  devDependencies?: Record<string, string>;
  /** True when the template needs `npm install` before it runs (an MCP server from npm). */
  needsInstall?: boolean;
  /** The `kind: test` document written to tests/<agent>.yaml, run by `npm test`. */
  test: string;
}

// A test document's header: what it is and how it runs.
const testHeader = (
  what: string,
) => `# A test of ${what}: \`agentctl test\` (or \`npm test\`) runs it offline; add turns and
# expectations as the agent grows (docs: testing).
kind: test
`;

// The version of server-filesystem the repository tests with.
const FILESYSTEM_SERVER = '2026.8.31';

const WORD_COUNT_TOOL = `import type { Tool } from '@agentctl/core';

// A module tool: agentctl loads TypeScript directly, no build step. \`import type\` is erased when it
// runs, so this works before \`npm install\`; after it, \`npx tsc\` type-checks the tool.
/** Counts the words of a text. */
export const wordCount = {
  name: 'word_count',
  description: 'Counts the words in a text',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count' } },
    required: ['text'],
  },
  execute: ({ text }: { text: string }) => ({ words: text.split(/\\s+/).filter(Boolean).length }),
} satisfies Tool<{ text: string }>;
`;

const single: Template = {
  agent: 'assistant',
  prompt: 'what time is it?',
  test: `${testHeader('the assistant')}name: assistant-uses-its-tools
agent: assistant
turns:
  - user: what time is it?
    expect:
      tool_calls: [{ name: current_time }, { name: word_count }, { name: clock }]
      max: { model_calls: 2 }
`,
  files: {
    'agents/assistant.yaml': `kind: agent
name: assistant
description: A first agent; answers offline until you give it a real model.
# offline/auto calls each tool once, then sums up. For a real model: openai/gpt-4.1-mini with
# OPENAI_API_KEY set, or anthropic/claude-sonnet-4-6 with ANTHROPIC_API_KEY.
model: offline/auto
instruction: |
  You are {{ agent.name }}, a helpful assistant. Today is {{ date }}.
  Use your tools when they help.
tools:
  - builtin: current_time
  - word_count
  - clock
limits: { max_iterations: 4, timeout: 30s }
---
kind: tool
name: word_count
description: Counts the words in a text
module: { path: ../tools/word-count.ts }
---
kind: tool
name: clock
description: Prints the date and time of this machine
parameters: { type: object, properties: {} }
command:
  argv: [date, -u]
# Command tools ask before each call unless told otherwise; \`date\` is harmless.
needs_approval: false
`,
    'tools/word-count.ts': WORD_COUNT_TOOL,
  },
};

const team: Template = {
  agent: 'triage',
  prompt: 'where is my invoice?',
  test: `${testHeader('the triage desk')}name: invoices-go-to-billing
agent: triage
turns:
  - user: where is my invoice?
    expect:
      transfer: billing
      output: { contains: 3 November }
`,
  files: {
    'agents/team.yaml': `# A triage desk that hands each conversation to a specialist (transfer), on scripted offline
# models: replace \`model:\` with a real one when you are ready.
kind: agent
name: triage
description: Routes questions to the right specialist
model: triage-script
instruction: |
  You are {{ agent.name }}, the front desk. Send questions about invoices and payments to billing,
  and questions about errors to tech.
sub_agents: [billing, tech]
---
kind: agent
name: billing
description: Answers questions about invoices and payments
model: billing-script
instruction: You answer billing questions. Today is {{ date }}.
---
kind: agent
name: tech
description: Solves technical problems
model: tech-script
instruction: You solve technical problems.
---
# Script turns are used in order, each once; a turn with \`match\` answers only a user message
# containing it, and \`fallback: true\` answers every other message, so a conversation goes on.
kind: model
name: triage-script
provider: offline
model: script
script:
  - match: invoice
    tool_calls: [{ name: transfer_to_agent, arguments: { agent_name: billing } }]
  - match: error
    tool_calls: [{ name: transfer_to_agent, arguments: { agent_name: tech } }]
  - fallback: true
    text: I can route questions about invoices and about errors.
---
kind: model
name: billing-script
provider: offline
model: script
script:
  - fallback: true
    text: Your last invoice was paid on 3 November.
---
kind: model
name: tech-script
provider: offline
model: script
script:
  - fallback: true
    text: Restart the app and clear its cache.
`,
  },
};

const pipeline: Template = {
  agent: 'brief',
  prompt: 'local models',
  test: `${testHeader('the pipeline')}name: brief-follows-its-outline
agent: brief
turns:
  - user: local models
    expect:
      state: { outline: 1. what it is 2. why it matters 3. how to start }
      output: { matches: "^Brief: " }
`,
  files: {
    'agents/pipeline.yaml': `# A pipeline: outline, then write. The outline is saved in session state (output_key) and the
# writer reads it through its instruction template.
kind: agent
name: brief
description: Outlines a topic, then writes a short brief from the outline
type: sequential
sub_agents:
  - name: outline
    description: Lists the points to cover
    model: outline-script
    instruction: "List three points to cover about: {{ input }}"
    output_key: outline
  - name: write
    description: Writes the brief from the outline
    model: write-script
    instruction: |
      Write a short brief about "{{ input }}" from this outline:
      {{ state.outline }}
---
kind: model
name: outline-script
provider: offline
model: script
# fallback: true answers every call, so the same session can be asked again.
script: [{ fallback: true, text: "1. what it is 2. why it matters 3. how to start" }]
---
kind: model
name: write-script
provider: offline
model: script
script: [{ fallback: true, text: "Brief: what it is, why it matters, and how to start, in three short paragraphs." }]
`,
  },
};

const mcp: Template = {
  agent: 'librarian',
  prompt: 'what is in the notes?',
  test: `${testHeader('the librarian')}name: librarian-reads-the-notes
agent: librarian
turns:
  - user: what is in the notes?
    expect:
      tool_calls:
        - { name: fs_list_directory }
        - { name: fs_read_text_file, args: { path: welcome.md } }
      output: { contains: welcome.md }
`,
  needsInstall: true,
  devDependencies: { '@modelcontextprotocol/server-filesystem': FILESYSTEM_SERVER },
  files: {
    'agents/librarian.yaml': `# An agent with an MCP toolset: a real MCP server from npm, started by agentctl as a child
# process (working folder: the project folder) for each run, and stopped when the run ends.
kind: agent
name: librarian
description: Reads the project's notes through an MCP filesystem server
model: librarian-script
instruction: You answer from the files in notes/. Today is {{ date }}.
tools: [{ toolset: notes }]
---
kind: toolset
name: notes
# Installed by \`npm install\` (package.json): runs offline from then on.
mcp:
  command: node
  args: [node_modules/@modelcontextprotocol/server-filesystem/dist/index.js, notes]
include: [list_directory, read_text_file]   # only the read-only tools
prefix: fs_                                 # the model sees fs_list_directory, fs_read_text_file
---
kind: model
name: librarian-script
provider: offline
model: script
script:
  # Paths are relative to the folder the server may read (notes).
  - tool_calls: [{ name: fs_list_directory, arguments: { path: . } }]
  - tool_calls: [{ name: fs_read_text_file, arguments: { path: welcome.md } }]
  - text: The notes hold one file, welcome.md, which says hello.
  # Answers every later message, so the conversation can go on.
  - fallback: true
    text: I answer from the files in notes/; a real model reads them for each question.
`,
    'notes/welcome.md': '# Welcome\n\nHello from your notes folder.\n',
  },
};

/** Every template by name. */
export const TEMPLATE_FILES: Record<TemplateName, Template> = { single, team, pipeline, mcp };
