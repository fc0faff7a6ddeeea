import { type Diagnostic, diagnostic } from '../diagnostic.js';
import type { DataPath } from '../load/document-positions.js';
import { loadSchema } from '../schemas.js';
import type { RuleContext } from './rule.js';

type Node = Record<string, unknown>;

// Below a second, a bare number is far more often seconds written without their unit
// (`timeout: 30`) than milliseconds meant: a real model call never answers within 30 ms.
const LIMIT = 1000;

const DURATION_DEF = /#\/\$defs\/(duration|positiveDuration)$/;
// What a schema that cannot refer to common.schema.json (a plugin's, a test's timeout) writes.
const UNIT_PATTERN = '(ms|s|m|h)';

// A schema of a duration: the shared definitions, or a number beside a string with a unit.
function isDuration(node: Node): boolean {
  if (typeof node.$ref === 'string') return DURATION_DEF.test(node.$ref);
  const shapes = Array.isArray(node.anyOf) ? (node.anyOf as Node[]) : [node];
  const types = shapes.flatMap((shape) => [shape?.type].flat());
  const unit = shapes.some(
    (shape) => typeof shape?.pattern === 'string' && shape.pattern.includes(UNIT_PATTERN),
  );
  return unit && types.includes('integer');
}

/**
 * A duration written as a bare number under 1000 (`timeout: 30`) counts milliseconds, so every
 * real model call or tool would time out at once: said with the unit to write. Found by walking
 * each document beside its kind's schema, so every field the schema types as a duration is
 * covered (the built-in plugins' options too), with no list of field names kept here.
 */
export function durationUnit(ctx: RuleContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of ctx.entries) {
    // Inline sub-agents are walked with the document that holds them.
    if (!entry.valid || entry.parent !== undefined || !hasSmallInteger(entry.spec)) continue;
    const found = new Map<string, DataPath>();
    visit(schemaFile(entry.kind), loadSchema(entry.kind), entry.spec, [], found, 0);
    for (const path of found.values()) {
      const value = valueAt(entry.spec, path) as number;
      out.push(
        diagnostic(
          entry.file,
          entry.locate(path),
          'duration-unit',
          `\`${String(path[path.length - 1])}: ${value}\` is ${value} millisecond${value === 1 ? '' : 's'} (a number counts milliseconds); write \`${value}s\` for seconds, or \`${value}ms\` if milliseconds are meant`,
          'warning',
        ),
      );
    }
  }
  return out;
}

function hasSmallInteger(value: unknown): boolean {
  if (typeof value === 'number') return isSmall(value);
  if (Array.isArray(value)) return value.some(hasSmallInteger);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasSmallInteger);
  return false;
}

function isSmall(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < LIMIT;
}

function schemaFile(kind: string): string {
  return `${kind}.schema.json`;
}

// Every branch (anyOf, oneOf, allOf, then, else) is followed: the document passed the schema,
// so a key it holds is one its branch allows, and no option name is a duration in one plugin and
// a count in another.
function visit(
  file: string,
  schema: unknown,
  data: unknown,
  path: DataPath,
  found: Map<string, DataPath>,
  depth: number,
): void {
  if (schema === null || typeof schema !== 'object' || depth > 64) return;
  const node = schema as Node;
  if (isDuration(node)) {
    if (isSmall(data)) found.set(JSON.stringify(path), path);
    return;
  }
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const [target, pointer] = resolve(file, ref);
    visit(target, pointer, data, path, found, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches))
      for (const branch of branches) visit(file, branch, data, path, found, depth + 1);
  }
  for (const key of ['then', 'else'] as const) visit(file, node[key], data, path, found, depth + 1);
  if (Array.isArray(data)) {
    if (node.items !== undefined)
      data.forEach((item, i) => {
        visit(file, node.items, item, [...path, i], found, depth + 1);
      });
    return;
  }
  if (data === null || typeof data !== 'object') return;
  const properties = (node.properties ?? {}) as Node;
  for (const [key, value] of Object.entries(data)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : node.additionalProperties;
    visit(file, sub, value, [...path, key], found, depth + 1);
  }
}

// `common.schema.json#/$defs/x`, `#/$defs/x` (in the same file) or `model.schema.json`.
function resolve(file: string, ref: string): [string, unknown] {
  const hash = ref.indexOf('#');
  const target = hash === 0 ? file : hash < 0 ? ref : ref.slice(0, hash);
  const name = target.replace(/\.schema\.json$/, '');
  let node: unknown;
  try {
    node = loadSchema(name);
  } catch {
    return [target, undefined];
  }
  const pointer = hash < 0 ? '' : ref.slice(hash + 1);
  for (const part of pointer.split('/').filter(Boolean))
    node =
      node !== null && typeof node === 'object'
        ? (node as Node)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined;
  return [target, node];
}

function valueAt(data: unknown, path: DataPath): unknown {
  let node = data;
  for (const part of path) node = (node as Node | unknown[])[part as never];
  return node;
}
