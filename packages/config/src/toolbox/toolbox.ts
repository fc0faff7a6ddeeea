import path from 'node:path';
import { type AnyTool, httpGet } from '@agentctl/core';
import type { FactoryContext } from '../registry.js';
import { filesystem } from './filesystem.js';
import { memory } from './memory.js';
import { shell } from './shell.js';
import { think } from './think.js';
import { todo } from './todo.js';

/** What a toolbox factory reads of its context. */
export type ToolboxContext = Pick<FactoryContext, 'root' | 'file' | 'env' | 'secrets'>;

type Options = Record<string, unknown>;
type Factory = (options: Options, ctx: ToolboxContext) => AnyTool | AnyTool[];

// `root` (already resolved inside the project) plus `roots`, declared folders that may lie
// outside it, relative to the file naming them.
function folders(options: Options, ctx: ToolboxContext): string[] {
  const extra = ((options.roots as string[] | undefined) ?? []).map((r) =>
    path.resolve(path.dirname(ctx.file), r),
  );
  return [(options.root as string | undefined) ?? ctx.root, ...extra];
}

/**
 * The toolbox: built-ins a project names in one line (`- builtin: shell`), each with schema'd
 * options (see `schemas/agent.schema.json`, `$defs/toolbox`) and permissions on by default.
 * Options arrive camelCased, durations in milliseconds.
 */
export const TOOLBOX: Readonly<Record<string, Factory>> = {
  shell: (o, ctx) => {
    const env: Record<string, string> = {};
    for (const name of ['PATH', ...((o.env as string[] | undefined) ?? [])]) {
      const value = ctx.env[name];
      if (value === undefined) continue;
      env[name] = value;
      if (name !== 'PATH') ctx.secrets.offer(value, [name]);
    }
    return shell({
      root: folders(o, ctx),
      allow: o.allow as string[] | undefined,
      deny: o.deny as string[] | undefined,
      timeout: o.timeout as number | undefined,
      maxOutputBytes: o.maxOutputBytes as number | undefined,
      env,
    });
  },
  filesystem: (o, ctx) =>
    filesystem({
      root: folders(o, ctx),
      readOnly: o.readOnly as boolean | undefined,
      approveWrites: o.approveWrites as boolean | undefined,
      maxBytes: o.maxBytes as number | undefined,
      maxResults: o.maxResults as number | undefined,
      allowPrivate: o.allowPrivate as boolean | undefined,
    }),
  fetch: (o) =>
    httpGet({
      name: 'fetch',
      allowedHosts: o.allowedHosts as string[] | undefined,
      maxBytes: o.maxBytes as number | undefined,
      timeout: o.timeout as number | undefined,
      extractText: (o.extractText as boolean | undefined) ?? true,
    }),
  think: () => think(),
  todo: () => todo(),
  memory: (o) => memory({ maxNotes: o.maxNotes as number | undefined }),
};
