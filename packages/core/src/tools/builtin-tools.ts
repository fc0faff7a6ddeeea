import type { AnyTool } from '../tool.js';
import { currentTime } from './current-time.js';
import { httpGet } from './http-get.js';
import { listDir } from './list-dir.js';
import { readFile } from './read-file.js';
import { userInput } from './user-input.js';

/** A built-in tool's factory: options from configuration in, a tool out. */
// biome-ignore lint/suspicious/noExplicitAny: each factory takes its own options type.
export type BuiltinToolFactory = (options: any) => AnyTool;

/** The built-in tools by the name they are declared with (`builtin: read_file`). */
export const BUILTIN_TOOLS = {
  current_time: currentTime,
  read_file: readFile,
  list_dir: listDir,
  http_get: httpGet,
  user_input: userInput,
} as const satisfies Record<string, BuiltinToolFactory>;

/** The name of a built-in tool. */
export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;
