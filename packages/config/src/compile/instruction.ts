import type { InstructionContext } from '@agentctl/core';
import { excerpt } from '../rules/excerpt.js';

const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
// `state.KEY.FIELD...`; the first key may carry its scope: `state.user:name`, `state.app:motd`.
const PATH =
  /^(input|date|agent\.name|state\.((app|user):)?[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*)$/;

/** Problems with `{{ ... }}` templates in an instruction: anything but the known paths. */
export function templateProblems(text: string): string[] {
  return templateProblemsAt(text).map((problem) => problem.message);
}

/** {@link templateProblems}, each with where its template starts in `text` and its length. */
export function templateProblemsAt(text: string): Array<{ index: number; length: number; message: string }> {
  const out: Array<{ index: number; length: number; message: string }> = [];
  // A `{{` that no template match took (`{{ state.company }`, `{{ input`) reaches the model as written.
  const rest = text.replace(TEMPLATE, (whole) => ' '.repeat(whole.length));
  for (const open of rest.matchAll(/\{\{/g)) {
    const written = /^\{\{[^\n]*/.exec(text.slice(open.index))?.[0] ?? '{{';
    const shown = written.length > 30 ? `${written.slice(0, 30)}...` : written.trimEnd();
    out.push({
      index: open.index,
      length: 2,
      message: `\`${shown}\` opens a template that no \`}}\` closes, so the model gets it as written; close it with \`}}\` (such as {{ input }}, {{ state.KEY }})`,
    });
  }
  for (const match of text.matchAll(TEMPLATE)) {
    if (!PATH.test(match[1])) {
      out.push({
        index: match.index,
        length: match[0].length,
        message: `unknown template \`{{ ${excerpt(match[1])} }}\` renders empty; use {{ input }}, {{ state.KEY }} (scoped: {{ state.user:KEY }}, {{ state.app:KEY }}), {{ agent.name }} or {{ date }}`,
      });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Renders an instruction template: a lookup of a few known paths, never code. Unknown paths
 * and missing state keys render empty.
 */
export function renderInstruction(
  template: string,
  ctx: InstructionContext,
  now: () => Date = () => new Date(),
): string {
  return template.replace(TEMPLATE, (_, path: string) => {
    if (path === 'input') return ctx.input;
    if (path === 'date') return now().toISOString().slice(0, 10);
    if (path === 'agent.name') return ctx.agent;
    if (!PATH.test(path) || !path.startsWith('state.')) return '';
    let value: unknown = ctx.state;
    for (const key of path.split('.').slice(1)) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return '';
      value = (value as Record<string, unknown>)[key];
    }
    return show(value);
  });
}
