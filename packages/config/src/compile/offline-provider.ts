import type { ModelDefinition } from '@agentctl/core';
import { type AgentErrorCode, type ModelProvider, offline, type ScriptTurn } from '@agentctl/core';
import { pointerToPath } from '../load/document-positions.js';
import { displayPath } from '../paths.js';
import type { FactoryContext } from '../registry.js';
import { turnsValidator } from '../schemas.js';
import type { ScriptTurnSpec } from '../spec-types.js';
import { readCassette } from './cassette-file.js';
import { parseYamlFile } from './yaml-file.js';

/** Maps a YAML script turn (snake_case) to core's ScriptTurn. */
export function toScriptTurn(turn: ScriptTurnSpec): ScriptTurn {
  const out: ScriptTurn = {};
  if (turn.match !== undefined) out.match = turn.match;
  if (turn.text !== undefined) out.text = turn.text;
  if (turn.tool_calls)
    out.toolCalls = turn.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments, id: c.id }));
  if (turn.error !== undefined) {
    out.error =
      typeof turn.error === 'string'
        ? turn.error
        : {
            message: turn.error.message,
            code: turn.error.code as AgentErrorCode | undefined,
            retryable: turn.error.retryable,
          };
  }
  if (turn.usage) {
    out.usage = {
      inputTokens: turn.usage.input_tokens,
      outputTokens: turn.usage.output_tokens,
      cacheReadTokens: turn.usage.cache_read_tokens,
      cacheWriteTokens: turn.usage.cache_write_tokens,
    };
  }
  if (turn.delay_ms !== undefined) out.delayMs = turn.delay_ms;
  if (turn.fallback !== undefined) out.fallback = turn.fallback;
  return out;
}

async function readScript(path: string, ctx: FactoryContext): Promise<ScriptTurnSpec[]> {
  return parseScript(ctx.readText(path, 'script'), path);
}

/**
 * The turns of a script file's text. A problem (not YAML, not a list of turns) is an error naming
 * `shown:line:col` in the script, as `validate` and `run` both report it.
 */
export async function parseScript(text: string, shown: string): Promise<ScriptTurnSpec[]> {
  const { data, at } = await parseYamlFile(text, shown, (message) => new Error(`script ${message}`));
  const validate = turnsValidator();
  if (validate && !validate(data)) {
    const first = validate.errors?.[0];
    const pointer = first?.instancePath ?? '';
    const where = at(pointerToPath(pointer));
    throw new Error(
      `script ${shown}:${where.line}:${where.col}: not a list of turns: ${pointer || '/'} ${first?.message ?? ''}`.trim(),
    );
  }
  return data as ScriptTurnSpec[];
}

/**
 * The replay model of a spec's `cassette:` path. `matchModel` is for a network model falling back
 * to its cassette: its requests still carry the real model id, so that is compared too.
 */
export async function replayFromSpec(
  model: ModelDefinition,
  ctx: FactoryContext,
  matchModel = false,
): Promise<ModelProvider> {
  if (model.cassette === undefined) {
    throw new Error(
      `model \`${model.name}\` has no \`cassette:\`; offline/replay needs the path of a recorded cassette`,
    );
  }
  const absolute = ctx.resolvePath(model.cassette);
  const source = displayPath(ctx.root, absolute);
  const cassette = await readCassette(absolute, source);
  return offline('replay', { cassette, source, matchModel });
}

/** The built-in `offline` provider: echo, auto, script and replay models from YAML. */
export async function offlineProvider(model: ModelDefinition, ctx: FactoryContext): Promise<ModelProvider> {
  const mode = model.model ?? 'echo';
  if (mode === 'echo' || mode === 'auto') return offline(mode);
  if (mode === 'script') {
    const turns =
      typeof model.script === 'string'
        ? (await readScript(model.script, ctx)).map(toScriptTurn)
        : (model.script ?? []);
    const source = typeof model.script === 'string' ? model.script : `model ${model.name}`;
    return offline('script', { script: turns, source });
  }
  if (mode === 'replay') return replayFromSpec(model, ctx);
  throw new Error(`offline model \`${mode}\` does not exist (use echo, auto, script or replay)`);
}
