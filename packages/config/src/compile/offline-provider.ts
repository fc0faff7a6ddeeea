import type { ModelDefinition } from '@agentctl/core';
import { type AgentErrorCode, type ModelProvider, offline, type ScriptTurn } from '@agentctl/core';
import { MAX_ALIAS_COUNT } from '../load/parse-file.js';
import { displayPath } from '../paths.js';
import type { FactoryContext } from '../registry.js';
import { turnsValidator } from '../schemas.js';
import type { ScriptTurnSpec } from '../spec-types.js';
import { readCassette } from './cassette-file.js';

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
  // yaml is loaded only by a project with a script model.
  const { parse } = await import('yaml');
  const data: unknown = parse(ctx.readText(path, 'script'), {
    maxAliasCount: MAX_ALIAS_COUNT,
    logLevel: 'error',
  });
  const validate = turnsValidator();
  if (validate && !validate(data)) {
    const first = validate.errors?.[0];
    throw new Error(
      `script ${path} is not a list of turns: ${first?.instancePath || '/'} ${first?.message ?? ''}`,
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
