import { excerpt } from '../rules/excerpt.js';
import { KINDS, loadSchema } from '../schemas.js';

type Mapping = Record<string, unknown>;

// What other agent frameworks call an agent's instruction.
const INSTRUCTION_NAMES = new Set(['system_prompt', 'system', 'prompt', 'system_message', 'persona']);

// The keys of a model document that a first agent often carries itself.
const MODEL_KEYS = new Set(['provider', 'api_key', 'base_url']);

/**
 * The hint for a key an agent (at its top, or inline in `sub_agents`) or a `tools:` entry does not
 * take but that says what was meant: a model's settings written into the agent, another
 * framework's name for the instruction, a tool declared inline, or a key of another kind.
 * `instancePath` is Ajv's JSON pointer to the mapping holding the key; '' when there is none.
 */
export function keyElsewhere(key: string, kind: string, instancePath: string, data: unknown): string {
  const mapping = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Mapping) : {};
  if (kind === 'agent' && /(^|\/)tools\/\d+$/.test(instancePath)) return inlineTool(key, mapping);
  const agentRoot = kind === 'agent' && (instancePath === '' || /\/sub_agents\/\d+$/.test(instancePath));
  if (agentRoot && MODEL_KEYS.has(key)) return modelSettings(key, mapping);
  if (agentRoot && INSTRUCTION_NAMES.has(key)) return '; did you mean `instruction`?';
  if (instancePath !== '') return '';
  const homes = KINDS.filter((other) => other !== kind && rootKeys(other).has(key));
  return homes.length > 0
    ? `; \`${excerpt(key)}\` is a key of ${homes.map((home) => `\`kind: ${home}\``).join(' and ')} documents`
    : '';
}

function modelSettings(key: string, agent: Mapping): string {
  const { provider, model } = agent;
  const inline =
    typeof provider === 'string' && typeof model === 'string' && !model.includes('/')
      ? `\`model: ${excerpt(provider)}/${excerpt(model)}\``
      : '`model: openai/gpt-4.1-mini`';
  return `; \`${key}\` is a setting of a \`kind: model\` document, which the agent names in \`model:\`; or name the model inline, with no document: ${inline}`;
}

function inlineTool(key: string, entry: Mapping): string {
  const tool = rootKeys('tool');
  // `- clock: { command: ... }`: the tool's name as the key of its declaration.
  const named = entry[key];
  const keyed = typeof named === 'object' && named !== null && Object.keys(named).some((k) => tool.has(k));
  if (key !== 'name' && !tool.has(key) && !keyed) return '';
  const name = keyed ? excerpt(key) : typeof entry.name === 'string' ? excerpt(entry.name) : 'NAME';
  return `; a tool is declared in a \`kind: tool\` document of its own (\`name\`, \`description\`, \`parameters\`, and \`command\`, \`http\` or \`module\`) and listed here by its name: \`- ${name}\``;
}

const cache = new Map<string, ReadonlySet<string>>();

function rootKeys(kind: string): ReadonlySet<string> {
  let keys = cache.get(kind);
  if (!keys) {
    const schema = loadSchema(kind) as { properties?: Mapping; $ref?: string; $defs?: Mapping };
    // The agent schema's root is `#/$defs/agent`, which inline sub-agents share.
    const local = schema.$ref?.startsWith('#/$defs/') ? schema.$defs?.[schema.$ref.slice(8)] : undefined;
    const properties = (local as { properties?: Mapping } | undefined)?.properties ?? schema.properties ?? {};
    keys = new Set(
      Object.keys(properties).filter((k) => !['kind', 'name', 'description', '$schema'].includes(k)),
    );
    cache.set(kind, keys);
  }
  return keys;
}
