import type { ErrorObject } from 'ajv';
import { envInName } from '../env/env-in-name.js';
import { excerpt } from '../rules/excerpt.js';
import { didYouMean, nearest } from './did-you-mean.js';
import { pointerToPath } from './document-positions.js';
import { keyElsewhere } from './key-elsewhere.js';

type SchemaNode = Record<string, unknown>;

/** One problem a JSON Schema found, in words, at a data path. */
export interface SchemaProblem {
  /** Where in the checked value. */
  path: Array<string | number>;
  /** The problem is about the key at `path` (unknown, missing, misplaced), not its value. */
  key: boolean;
  rule: 'schema' | 'unknown-key';
  message: string;
}

/** How problems name what they are about: a document kind, or a plugin's options. */
export interface SchemaSubject {
  /** The checked value as a whole, as in "unknown key `x` in agent". */
  whole: string;
  /** How one field is named: "`timeout`", or "option `timeout`". */
  field(name: string): string;
  /** `whole` is plural ("the options are missing..."). */
  plural?: boolean;
  /** The document kind checked, when the value is a whole document. */
  kind?: string;
}

/**
 * Turns Ajv's errors (`allErrors` and `verbose` on) into problems in words: one per real mistake.
 * Errors of `anyOf`/`oneOf` branches that do not apply (a branch of the wrong type) are dropped,
 * and a value that fits none of several forms is one problem naming the forms (from the union's
 * `description`), so `timeout: x` against a duration is one error, not one per branch.
 */
export function schemaProblems(errors: readonly ErrorObject[], subject: SchemaSubject): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of collapseAlternatives(errors)) {
    const made = toProblem(error, subject);
    const key = `${made.path.join('/')}:${made.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(made);
    }
  }
  return out;
}

function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  // A key that fails `propertyNames` is said once, by the propertyNames error, not by its pattern too.
  const list = errors.filter(
    (e) => e.keyword !== 'if' && (e as { propertyName?: unknown }).propertyName === undefined,
  );
  const dropped = new Set<ErrorObject>();
  const result = new Map<ErrorObject, ErrorObject[]>();
  for (let i = 0; i < list.length; i++) {
    const combinator = list[i];
    if (combinator.keyword !== 'anyOf' && combinator.keyword !== 'oneOf') continue;
    const at = combinator.instancePath;
    const under = (e: ErrorObject) => e.instancePath === at || e.instancePath.startsWith(`${at}/`);
    // Branch errors come right before their combinator, all at or below its instance path.
    const branch: ErrorObject[] = [];
    for (let j = i - 1; j >= 0 && under(list[j]); j--) {
      if (!dropped.has(list[j]) && belongsTo(list[j], combinator)) branch.unshift(list[j]);
    }
    for (const e of branch) dropped.add(e);
    result.set(combinator, choose(combinator, branch));
  }
  const out: ErrorObject[] = [];
  for (const e of list) {
    if (dropped.has(e)) continue;
    out.push(...(result.get(e) ?? [e]));
  }
  // An unknown key usually explains a missing alternative in the same mapping, and a misspelt key
  // the required one it is near (`nme:` for `name:`): keep only the unknown key.
  const unknown = out.filter((e) => e.keyword === 'additionalProperties');
  const unknownAt = new Set(unknown.map((e) => e.instancePath));
  const misspelt = (e: ErrorObject) => {
    if (e.keyword !== 'required') return false;
    const missing = String((e.params as { missingProperty?: unknown }).missingProperty);
    return unknown.some(
      (u) =>
        u.instancePath === e.instancePath &&
        nearest(String((u.params as { additionalProperty?: unknown }).additionalProperty), [missing]) !==
          undefined,
    );
  };
  // `sub_agents: [{ agent: b }]`, the form of `tools:`: the unknown key says how to write it, so
  // the inline agent's missing `name` is not said too.
  const toolForm = new Set(unknown.filter(isAgentToolForm).map((e) => e.instancePath));
  return out.filter(
    (e) =>
      !(isRequiredOnly(e) && unknownAt.has(e.instancePath)) &&
      !misspelt(e) &&
      !(e.keyword === 'required' && toolForm.has(e.instancePath)),
  );
}

function agentNamed(item: unknown): string {
  const name = (item as Record<string, unknown> | null)?.agent;
  return typeof name === 'string' ? excerpt(name) : 'NAME';
}

// An unknown `agent:` key in an item of `sub_agents` (an agent's, or an inline sub-agent's).
function isAgentToolForm(error: ErrorObject): boolean {
  return (
    error.keyword === 'additionalProperties' &&
    (error.params as { additionalProperty?: unknown }).additionalProperty === 'agent' &&
    /(^|\/)sub_agents\/\d+$/.test(error.instancePath)
  );
}

function isRequiredOnly(error: ErrorObject): boolean {
  if (error.keyword !== 'oneOf' && error.keyword !== 'anyOf') return false;
  const branches = Array.isArray(error.schema) ? (error.schema as SchemaNode[]) : [];
  return (
    branches.length > 0 &&
    branches.every(
      (b) => Array.isArray(b.required) && Object.keys(b).every((k) => k === 'required' || k === 'not'),
    )
  );
}

/** Whether an error comes from one of the combinator's branches (and not a sibling keyword or another combinator). */
function belongsTo(error: ErrorObject, combinator: ErrorObject): boolean {
  const path = combinator.schemaPath;
  if (error.schemaPath.startsWith(`${path}/`)) return true;
  const parent = path.slice(0, path.lastIndexOf('/'));
  if (error.schemaPath.startsWith(`${parent}/`)) return false;
  // A branch that is a $ref reports paths of the referenced schema; another combinator's branch does not count.
  return (
    !/\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath) ||
    !error.schemaPath.startsWith(path.slice(0, path.indexOf('#') + 1))
  );
}

function choose(combinator: ErrorObject, branch: ErrorObject[]): ErrorObject[] {
  const at = combinator.instancePath;
  const params = combinator.params as { passingSchemas?: unknown };
  if (combinator.keyword === 'oneOf' && params.passingSchemas) return [combinator];
  const prefix = `${combinator.schemaPath}/`;
  const groups = new Map<string, ErrorObject[]>();
  for (const e of branch) {
    const index = e.schemaPath.startsWith(prefix) ? e.schemaPath.slice(prefix.length).split('/')[0] : '?';
    groups.set(index, [...(groups.get(index) ?? []), e]);
  }
  // A branch of the wrong type does not apply; a $ref'd branch only shows as a type error too.
  const applies = (errs: ErrorObject[]) => !errs.some((e) => e.keyword === 'type' && e.instancePath === at);
  const attributed = [...groups.entries()].filter(([index, errs]) => index !== '?' && applies(errs));
  const unattributed = (groups.get('?') ?? []).filter(
    (e) => !(e.keyword === 'type' && e.instancePath === at),
  );
  if (attributed.length === 0 && unattributed.length > 0) return unattributed;
  if (attributed.length === 1 && unattributed.length === 0) return attributed[0][1];
  if (attributed.length > 1 && unattributed.length === 0 && !isRequiredOnly(combinator)) {
    const sizes = attributed.map(([, errs]) => errs.length).sort((a, b) => a - b);
    if (sizes[0] < sizes[1]) {
      const best = attributed.find(([, errs]) => errs.length === sizes[0]);
      if (best) return best[1];
    }
  }
  return [combinator];
}

function fieldName(path: Array<string | number>, subject: SchemaSubject): string {
  const last = [...path].reverse().find((p) => typeof p === 'string');
  return last === undefined ? `the ${subject.whole}` : subject.field(excerpt(last));
}

function alternativesMessage(error: ErrorObject, subject: SchemaSubject): string {
  const path = pointerToPath(error.instancePath);
  const branches = Array.isArray(error.schema) ? (error.schema as SchemaNode[]) : [];
  const keys = branches.flatMap((b) =>
    Array.isArray(b.required) && Object.keys(b).every((k) => k === 'required' || k === 'not')
      ? (b.required as string[])
      : [],
  );
  if (keys.length === branches.length && keys.length > 0) {
    return `${fieldName(path, subject)} needs exactly one of ${keys.map((k) => `\`${k}\``).join(', ')}`;
  }
  const description = (error.parentSchema as SchemaNode | undefined)?.description;
  if (typeof description === 'string')
    return `${fieldName(path, subject)} is not valid; expected ${lowerFirst(description)}`;
  return `${fieldName(path, subject)} matches none of the allowed forms`;
}

function lowerFirst(text: string): string {
  return /^[A-Z](?![A-Z])/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

// A key written one level too high (`tool_timeout:` on an agent, for `limits: { tool_timeout }`):
// the mapping beside it that takes that key.
function nestedHome(key: string, properties: SchemaNode): string {
  for (const [name, sub] of Object.entries(properties)) {
    const inner = (sub as SchemaNode | undefined)?.properties;
    if (inner && typeof inner === 'object' && Object.hasOwn(inner, key))
      return `; did you mean \`${name}: { ${excerpt(key)}: ... }\`?`;
  }
  return '';
}

// `instruction: { file: prompt.md }` is a guess at how to read the instruction from a file.
function fromFile(path: Array<string | number>, subject: SchemaSubject, data: unknown): string {
  const mapping = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (!mapping || subject.whole !== 'agent' || path.length !== 1 || path[0] !== 'instruction') return '';
  const written = (data as Record<string, unknown>).file ?? (data as Record<string, unknown>).path;
  return `; to read it from a file, write \`instruction_file: ${typeof written === 'string' ? excerpt(written) : 'prompt.md'}\``;
}

// A command line written as one string where its words are a list (`argv: date -u`): one element
// per word, since no shell splits it.
function programLine(path: Array<string | number>, data: string): string {
  const key = path[path.length - 1];
  const words = data.trim().split(/\s+/);
  if ((key !== 'argv' && key !== 'args') || words.length < 2) return '';
  return `; no shell splits it: write each word as its own element, \`[${excerpt(words.map(flowWord).join(', '))}]\``;
}

// A word as a YAML flow list takes it: quoted when it starts with a character YAML reserves
// (`@scope/pkg`) or holds one that ends or opens a flow value.
function flowWord(word: string): string {
  return /^[A-Za-z0-9_./~=+-][^,[\]{}#'"]*$/.test(word) && !word.includes(': ') ? word : JSON.stringify(word);
}

// `command: date -u` in a tool: the program goes under `argv`.
function commandLine(path: Array<string | number>, subject: SchemaSubject, data: unknown): string {
  if (subject.whole !== 'tool' || path.length !== 1 || path[0] !== 'command' || typeof data !== 'string')
    return '';
  return `; write the program and its arguments as a list under \`argv\`: \`command: { argv: [${excerpt(data.trim().split(/\s+/).map(flowWord).join(', '))}] }\``;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function toProblem(error: ErrorObject, subject: SchemaSubject): SchemaProblem {
  const path = pointerToPath(error.instancePath);
  const field = fieldName(path, subject);
  const params = error.params as Record<string, unknown>;
  const value = (message: string): SchemaProblem => ({ path, key: false, rule: 'schema', message });
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const properties = ((error.parentSchema as SchemaNode)?.properties as SchemaNode) ?? {};
      const where = path.length === 0 ? subject.whole : field;
      const hint = isAgentToolForm(error)
        ? `: a sub-agent is named bare (\`sub_agents: [${agentNamed(error.data)}]\`) or written inline with \`name:\`; \`{ agent: ... }\` is how \`tools:\` calls an agent`
        : didYouMean(key, Object.keys(properties)) ||
          nestedHome(key, properties) ||
          keyElsewhere(key, subject.kind ?? '', error.instancePath, error.data);
      return {
        path: [...path, key],
        key: true,
        rule: 'unknown-key',
        message: `unknown key \`${excerpt(key)}\` in ${where}${hint}`,
      };
    }
    case 'required': {
      const where = path.length === 0 ? `${subject.whole} ${subject.plural ? 'are' : 'is'}` : `${field} is`;
      return {
        path,
        key: true,
        rule: 'schema',
        message: `${where} missing the required key \`${excerpt(String(params.missingProperty))}\``,
      };
    }
    case 'propertyNames': {
      const key = String(params.propertyName);
      const what = describedAs(error.parentSchema as SchemaNode | undefined);
      return {
        path: [...path, key],
        key: true,
        rule: 'schema',
        message: `\`${excerpt(key)}\` is not a valid key in ${field}${what ? `; expected ${what}` : ''}`,
      };
    }
    case 'dependentRequired':
      return {
        path: [...path, String(params.property)],
        key: true,
        rule: 'schema',
        message: `\`${excerpt(String(params.property))}\` needs \`${String(params.missingProperty)}\` beside it`,
      };
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .map((t) => TYPE_NAMES[t] ?? t)
        .join(' or ');
      // `tools: current_time` for `tools: [current_time]` is the usual way to get a list wrong.
      const listOfOne =
        String(params.type).split(',').includes('array') && typeof error.data === 'string'
          ? programLine(path, error.data) || `; a list of one is written \`[${excerpt(error.data)}]\``
          : '';
      return value(
        `${field} must be ${expected}, not ${describeValue(error.data)}${listOfOne}${fromFile(path, subject, error.data)}${commandLine(path, subject, error.data)}`,
      );
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const hint = typeof error.data === 'string' ? didYouMean(error.data, allowed) : '';
      return value(
        `${field} must be one of ${excerpt(allowed.join(', '), 300)} (got ${describeValue(error.data)})${hint}`,
      );
    }
    case 'const':
      return value(`${field} must be ${JSON.stringify(params.allowedValue)}`);
    case 'pattern': {
      const description = (error.parentSchema as SchemaNode | undefined)?.description;
      const expected =
        typeof description === 'string'
          ? `; expected ${lowerFirst(description)}`
          : ` (must match ${String(params.pattern)})`;
      // A URL's user and password are secrets: the diagnostic (a CI log) does not repeat them.
      const shown =
        typeof error.data === 'string' ? error.data.replace(/^(\w+:\/\/)[^\s/?#]*@/, '$1***@') : error.data;
      // A name is read as written: say so of one written with `${VAR}`.
      const hint =
        typeof description === 'string' && description.startsWith('A name') ? envInName(error.data) : '';
      return value(
        `${field} is not valid: ${describeValue(shown)}${hint ? expected.replace(/\.$/, '') : expected}${hint}`,
      );
    }
    case 'false schema': {
      // The schemas use `false` only for a model's keys that one kind of model plays: an offline
      // model's (under its `then`) or the offline provider's (under its `else`).
      const offline = error.schemaPath.includes('/then/');
      const key = path.at(-1);
      const only = !offline
        ? 'provider `offline`'
        : key === 'script'
          ? 'model `script` of provider `offline`'
          : 'model `replay` of provider `offline`, or a model of another provider (played when it has no api_key)';
      return { path, key: true, rule: 'schema', message: `${field} is only for ${only}` };
    }
    case 'maxProperties': {
      const limit = Number(params.limit);
      const keys = Object.keys((error.data as object | null) ?? {});
      // In a list, a second key is usually a second item that lost its `- `.
      const hint = typeof path.at(-1) === 'number' ? ': give each its own list item (`- `)' : '';
      return value(
        `${field} takes ${limit === 1 ? 'one key' : `at most ${limit} keys`}, not ${keys.length} (${keys.map((k) => `\`${excerpt(k)}\``).join(', ')})${hint}`,
      );
    }
    case 'minProperties':
      return value(`${field} needs at least ${plural(Number(params.limit), 'key')}`);
    case 'minItems':
      return value(`${field} needs at least ${plural(Number(params.limit), 'item')}`);
    case 'maxItems':
      return value(`${field} takes at most ${plural(Number(params.limit), 'item')}`);
    case 'minLength':
      return value(
        Number(params.limit) === 1
          ? `${field} must not be empty`
          : `${field} needs at least ${plural(Number(params.limit), 'character')}`,
      );
    case 'anyOf':
    case 'oneOf':
      return value(alternativesMessage(error, subject));
    default:
      return value(`${field} ${error.message ?? 'is not valid'}`);
  }
}

// A schema's own description, lower-cased at its start, to say what was expected.
function describedAs(schema: SchemaNode | undefined): string | undefined {
  const text = typeof schema?.description === 'string' ? schema.description : undefined;
  // "HTTP headers" keeps its capitals; "The server" becomes "the server".
  return text && (/^[A-Z][a-z]/.test(text) ? `${text.charAt(0).toLowerCase()}${text.slice(1)}` : text);
}
