import { InMemorySessionStore } from '@agentctl/core';
import {
  loggingFromOptions,
  redactionFromOptions,
  retryFromOptions,
  timeoutFromOptions,
} from './compile/builtin-middleware.js';
import { offlineProvider } from './compile/offline-provider.js';
import { Registry } from './registry.js';
import { TOOLBOX } from './toolbox/toolbox.js';
import { commandTool } from './tools/command-tool.js';
import { httpTool } from './tools/http-tool.js';
import { moduleTool } from './tools/module-tool.js';

/**
 * A registry with the built-ins: provider `offline`; middleware retry, timeout, logging,
 * redaction; memory `memory`; tool kinds module, http, command; the toolbox built-ins shell,
 * filesystem, fetch, think, todo, memory.
 *
 * @example
 * const registry = createRegistry().registerProvider('openai', (model) => openai(model));
 */
export function createRegistry(): Registry {
  const registry = new Registry()
    .registerProvider('offline', offlineProvider)
    .registerMiddleware('retry', retryFromOptions)
    .registerMiddleware('timeout', timeoutFromOptions)
    .registerMiddleware('logging', loggingFromOptions)
    .registerMiddleware('redaction', redactionFromOptions)
    .registerMemory('memory', () => new InMemorySessionStore())
    .registerToolKind('module', moduleTool)
    .registerToolKind('http', httpTool)
    .registerToolKind('command', commandTool);
  for (const [name, factory] of Object.entries(TOOLBOX)) registry.registerBuiltinTool(name, factory);
  return registry;
}
