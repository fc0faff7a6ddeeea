import { boundedRegExp, RegExpTimeoutError } from './bounded-regexp.js';
import type { ToolCall } from './messages.js';
import type { AnyTool } from './tool.js';
import { foldsCase, type PathArguments, pathReadings } from './tools/path-readings.js';
import { spellingReadings } from './tools/spelling-readings.js';
import { urlReadings } from './tools/url-readings.js';

/**
 * Matches calls: `tool` is a name where `*` is a wildcard; each `args` entry matches the argument
 * of that name (dotted for nested fields, own properties only) on its canonical string form, with
 * a `*` glob or a `/regex/flags`.
 */
export interface ApprovalRule {
  tool: string;
  args?: Record<string, string>;
}

/** A rule as written in text (`TOOL`, `TOOL:GLOB`, `TOOL:ARG=GLOB`): `value` when no argument is named. */
export interface WrittenApprovalRule extends ApprovalRule {
  /** A pattern on the tool's only string argument (`TOOL:GLOB`), bound by {@link bindApprovalRule}. */
  value?: string;
}

const TOOL = /^[A-Za-z0-9_*-]+$/;
const NAMED = /^([A-Za-z_$][\w$]*(?:\.[\w$]+)*)=(.*)$/s;

/** The grammar of a rule in text, for messages. */
export const APPROVAL_RULE_GRAMMAR = 'TOOL, TOOL:ARG=GLOB, or TOOL:GLOB for a tool with one string argument';

/**
 * Parses `TOOL`, `TOOL:ARG=GLOB` or `TOOL:GLOB`; throws a TypeError on anything else.
 *
 * @example
 * parseApprovalRule('fetch:url=https://example.com/*'); // { tool: 'fetch', args: { url: 'https://example.com/*' } }
 */
export function parseApprovalRule(text: string): WrittenApprovalRule {
  const colon = text.indexOf(':');
  const tool = colon < 0 ? text : text.slice(0, colon);
  if (!TOOL.test(tool)) {
    throw new TypeError(`"${text}": write ${APPROVAL_RULE_GRAMMAR} ("*" is a wildcard in TOOL)`);
  }
  if (colon < 0) return { tool };
  const rest = text.slice(colon + 1);
  const named = NAMED.exec(rest);
  return named ? { tool, args: { [named[1]]: named[2] } } : { tool, value: rest };
}

/** The top-level arguments of a tool that take strings (by its parameter schema). */
export function stringArguments(tool: Pick<AnyTool, 'parameters'>): string[] {
  const properties =
    (tool.parameters as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, schema]) => {
      const type = schema?.type;
      return type === 'string' || (Array.isArray(type) && type.includes('string'));
    })
    .map(([name]) => name);
}

/**
 * Binds a written rule to the tools it may match: a `TOOL:GLOB` rule gets the argument name
 * (each tool it matches must have exactly one string argument, and they must agree), and no rule
 * may name an argument a shell runs. Throws a TypeError saying what to write instead.
 */
export function bindApprovalRule(rule: WrittenApprovalRule, tools: readonly AnyTool[]): ApprovalRule {
  const matching = tools.filter((tool) => globMatcher(rule.tool)(tool.name));
  const bound = rule.value === undefined ? { tool: rule.tool, args: rule.args } : bindValue(rule, matching);
  for (const name of Object.keys(bound.args ?? {})) {
    const shell = matching.find((tool) => tool.shellArguments?.includes(name));
    if (shell) throw new TypeError(shellArgumentMessage(shell.name, name));
  }
  return bound;
}

/** Why no rule may match an argument that a shell runs as code. */
export function shellArgumentMessage(tool: string, argument: string): string {
  return `a rule on \`${argument}\` of ${tool} would match a shell script: a pattern such as "ls *" also matches "ls . ; rm -rf ~". Match a tool whose arguments are passed as separate argv elements, or use the allow/deny command patterns of the shell built-in`;
}

function bindValue(rule: WrittenApprovalRule, matching: readonly AnyTool[]): ApprovalRule {
  const names = new Set<string>();
  for (const tool of matching) {
    const strings = stringArguments(tool);
    if (strings.length !== 1) {
      throw new TypeError(
        `"${rule.tool}:${rule.value}" names no argument, and ${tool.name} has ${strings.length === 0 ? 'no string argument' : `${strings.length} string arguments (${strings.join(', ')})`}: write ${tool.name}:ARG=GLOB`,
      );
    }
    names.add(strings[0]);
  }
  if (names.size !== 1) {
    throw new TypeError(
      matching.length === 0
        ? `"${rule.tool}:${rule.value}" matches no tool of this agent`
        : `"${rule.tool}:${rule.value}" matches tools whose string arguments differ (${[...names].join(', ')}): write TOOL:ARG=GLOB`,
    );
  }
  return { tool: rule.tool, args: { [[...names][0]]: rule.value as string } };
}

/**
 * The argument `name` of a call (dotted for nested fields) in canonical string form, looking at
 * own properties only: a string as is, a number, boolean or null as JSON, an object or array as
 * JSON with sorted keys. Undefined when the call has no such argument. A key that itself holds a
 * dot is read first; {@link argumentReadings} gives every value the name may refer to.
 */
export function canonicalArgument(args: Record<string, unknown>, name: string): string | undefined {
  let value: unknown;
  if (Object.hasOwn(args, name)) value = args[name];
  else if (name.includes('.')) {
    value = args;
    for (const key of name.split('.')) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
  } else return undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}

/**
 * Every value the argument `name` of a call may refer to, in canonical string form: a dotted name
 * reads both a key holding the dot and the nested field, since `{ "a.b": "x", a: { b: "y" } }`
 * has two, and a tool reads whichever it likes. Empty when the call has none.
 */
export function argumentReadings(args: Record<string, unknown>, name: string): string[] {
  const out: string[] = [];
  const read = (value: unknown, rest: string) => {
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (Object.hasOwn(record, rest) && record[rest] !== undefined) {
      const found = record[rest];
      out.push(typeof found === 'string' ? found : canonicalJson(found));
    }
    for (let dot = rest.indexOf('.'); dot >= 0; dot = rest.indexOf('.', dot + 1)) {
      const key = rest.slice(0, dot);
      if (Object.hasOwn(record, key)) read(record[key], rest.slice(dot + 1));
    }
  };
  read(args, name);
  return out;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A test of calls against a rule; throws a TypeError naming `where` on a bad pattern. An `allow`
 * rule's argument pattern never matches a value with a `..` path segment unless the pattern spells
 * one out: `notes/*` allows what is in notes/, not `notes/../../x`; a `deny` rule matches it.
 */
export function approvalRuleMatcher(
  rule: ApprovalRule,
  where = 'approval rule',
  effect: 'allow' | 'deny' = 'deny',
): (call: ToolCall, tool?: Pick<AnyTool, 'pathArguments' | 'urlArguments'>) => boolean {
  if (typeof rule?.tool !== 'string' || rule.tool === '') {
    throw new TypeError(`${where}: "tool" must be a tool name or pattern`);
  }
  const tool = globMatcher(rule.tool);
  // A pattern stopped for running too long decides against the call: an allow rule does not vouch
  // for it, a deny rule denies it.
  const judged = (match: (value: string) => boolean) => (value: string) => {
    try {
      return match(value);
    } catch (error) {
      if (error instanceof RegExpTimeoutError) return effect !== 'allow';
      throw error;
    }
  };
  const guard = (match: (value: string) => boolean, pattern: string) =>
    effect === 'allow' && !UP_SEGMENT.test(pattern)
      ? (value: string) => !UP_SEGMENT.test(value) && match(value)
      : match;
  const args = Object.entries(rule.args ?? {}).map(([name, pattern]) => {
    const at = `${where}.args.${name}`;
    const exact = guard(judged(valueMatcher(pattern, at)), pattern);
    // A path on a file system that ignores case is matched ignoring case: made when first needed.
    let folded: ((value: string) => boolean) | undefined;
    const foldedMatch = (value: string) => {
      folded ??= guard(judged(valueMatcher(pattern, at, true)), pattern);
      return folded(value);
    };
    return [name, exact, foldedMatch] as const;
  });
  // A name that reads two values is matched on both for an allow (each must match) and on
  // either for a deny: a key holding a dot cannot stand in for the nested field the tool reads.
  // So is a path argument of a file tool, read as written and as the path the tool will open, and
  // a URL as the request it makes. A tool that does not say how it reads an argument (an MCP
  // server's `path`) may resolve `..` or parse a URL all the same: a deny rule reads its value
  // in those spellings too, so that `notes/../secret/a` does not pass `secret/*`.
  return (call, of) =>
    tool(call.name) &&
    args.every(([name, exact, foldedMatch]) => {
      const values = argumentReadings(call.arguments ?? {}, name);
      const value = call.arguments?.[name];
      let match = exact;
      const paths = of?.pathArguments;
      const asPath = paths?.names.includes(name) === true;
      const asUrl = of?.urlArguments?.includes(name) === true;
      if (asPath && paths) {
        if (typeof value === 'string' && !paths.resolved) values.push(...pathReadings(paths.root, value));
        if (paths.caseInsensitive ?? foldsCase(firstRoot(paths.root))) match = foldedMatch;
      }
      if (typeof value === 'string') {
        if (asUrl) values.push(...urlReadings(value));
        if (!asPath && !asUrl && effect === 'deny') values.push(...spellingReadings(value));
      }
      return values.length > 0 && (effect === 'allow' ? values.every(match) : values.some(match));
    });
}

// A `..` path segment (either slash), where a path climbs out of the folder a pattern names.
const UP_SEGMENT = /(^|[/\\])\.\.([/\\]|$)/;

function firstRoot(roots: PathArguments['root']): string {
  return typeof roots === 'string' ? roots : (roots[0] ?? '.');
}

// `fold`: ignoring case, as a file system that does compares names.
function valueMatcher(pattern: string, where: string, fold = false): (value: string) => boolean {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (!regex) return globMatcher(pattern, fold);
  try {
    // Tested from the value's start every time (`g` and `y` would resume where the last match
    // ended, and a deny rule matching one call would miss the next), within a time budget.
    const flags = fold && !regex[2].includes('i') ? `${regex[2]}i` : regex[2];
    const compiled = boundedRegExp(new RegExp(regex[1], flags));
    return (value) => compiled.test(value);
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    throw new TypeError(`${where}: invalid regular expression ${pattern}: ${reason}`);
  }
}

/**
 * Whether every top-level argument of a call is one the tool's parameters declare: an allow rule
 * on named arguments vouches for a call only then, since an open schema lets others reach the tool.
 */
export function argumentsDeclared(call: ToolCall, tool: Pick<AnyTool, 'parameters'>): boolean {
  const properties = (tool.parameters as { properties?: unknown } | undefined)?.properties;
  const declared = typeof properties === 'object' && properties !== null ? properties : {};
  return Object.keys(call.arguments ?? {}).every((name) => Object.hasOwn(declared, name));
}

/** A test of names against a pattern where `*` stands for any run of characters; `ignoreCase` to match without case. */
export function globMatcher(pattern: string, ignoreCase = false): (value: string) => boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const compiled = new RegExp(`^${source}$`, ignoreCase ? 'si' : 's');
  return (value) => compiled.test(value);
}
