import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { SchemaError } from '../../src/loop/plain-schema.js';

type Schema = Record<string, unknown> | boolean;

/** A seeded pseudo-random source (mulberry32): the same seed makes the same corpus. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The options core's tool-argument validator gives Ajv (packages/core/src/loop/schema-validator.ts).
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
(addFormats as unknown as (ajv: unknown) => void)(ajv);

/** Ajv's check of `schema`: the errors of a value, with the fields the wording is made of; [] when valid. */
export function ajvCheck(schema: unknown): (value: unknown) => SchemaError[] {
  const check = ajv.compile(schema as object);
  ajv.removeSchema(schema as object);
  return (value) =>
    check(value)
      ? []
      : (check.errors ?? []).map((e) => ({
          instancePath: e.instancePath,
          message: e.message ?? '',
          params: e.params,
        }));
}

/** Ajv's verdict on compiling `schema`: undefined, or the message it throws. */
export function ajvCompileError(schema: unknown): string | undefined {
  try {
    ajv.compile(schema as object);
    ajv.removeSchema(schema as object);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const TYPES = ['object', 'string', 'number', 'integer', 'boolean', 'array', 'null'];
// Names that stress the paths and lookups: a slash and a tilde (JSON Pointer escapes), an
// inherited property of every object, and plain ones.
const NAMES = ['a', 'b', 'c', 'order', 'a/b', 't~x', 'toString', 'with space'];
const PATTERNS = ['^[a-z]+$', '\\d', '^.{2,4}$', 'é', '^\\p{L}+$', '^$'];
const STRINGS = ['', 'a', 'ab', 'abc', 'abcdef', 'é', '😀', '😀😀x', '12', 'Zz', 'hello world', 'toString'];
const NUMBERS = [0, 1, -1, 2, 3, 0.5, 1.5, 2.5, 10, 100, -7, 0.1, 0.30000000000000004, 1e21, 4.2];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function chance(random: () => number, p: number): boolean {
  return random() < p;
}

/** A random JSON value, small and varied: every type, nesting, the names and strings above. */
export function randomValue(random: () => number, depth = 0): unknown {
  const kind = Math.floor(random() * (depth > 2 ? 5 : 7));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return chance(random, 0.5);
    case 2:
      return pick(random, NUMBERS);
    case 3:
      return pick(random, STRINGS);
    case 4:
      return Math.floor(random() * 5);
    case 5:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const size = Math.floor(random() * 4);
      for (let i = 0; i < size; i++) object[pick(random, NAMES)] = randomValue(random, depth + 1);
      return object;
    }
  }
}

function primitiveValue(random: () => number): unknown {
  for (;;) {
    const value = randomValue(random, 3);
    if (typeof value !== 'object' || value === null) return value;
  }
}

/** A random schema made only of the keywords the plain validator compiles. */
export function randomSchema(random: () => number, depth = 0): Schema {
  if (depth > 0 && chance(random, 0.05)) return chance(random, 0.5);
  const schema: Record<string, unknown> = {};
  const roll = random();
  const types =
    roll < 0.8 ? [pick(random, TYPES)] : roll < 0.92 ? [pick(random, TYPES), pick(random, TYPES)] : [];
  const distinct = [...new Set(types)];
  if (distinct.length === 1) schema.type = distinct[0];
  else if (distinct.length > 1) schema.type = distinct;
  const has = (t: string) => distinct.length === 0 || distinct.includes(t);
  if (has('object') && chance(random, 0.85)) {
    if (chance(random, 0.8)) {
      const properties: Record<string, Schema> = {};
      const size = 1 + Math.floor(random() * (depth > 1 ? 2 : 4));
      for (let i = 0; i < size; i++) properties[pick(random, NAMES)] = randomSchema(random, depth + 1);
      schema.properties = properties;
    }
    if (chance(random, 0.6)) schema.required = [...new Set([pick(random, NAMES), pick(random, NAMES)])];
    if (chance(random, 0.6)) {
      const r = random();
      schema.additionalProperties = r < 0.6 ? false : r < 0.75 ? true : randomSchema(random, depth + 1);
    }
    if (chance(random, 0.1)) schema.minProperties = Math.floor(random() * 3);
    if (chance(random, 0.1)) schema.maxProperties = Math.floor(random() * 3);
  }
  if (has('array') && chance(random, 0.7)) {
    // `items: false` is a tuple's end (left to Ajv): a true schema stands in for it.
    if (chance(random, 0.7))
      schema.items = depth > 2 ? { type: pick(random, TYPES) } : randomSchema(random, depth + 1) || true;
    if (chance(random, 0.3)) schema.minItems = Math.floor(random() * 3);
    if (chance(random, 0.3)) schema.maxItems = Math.floor(random() * 3);
  }
  if (has('string') && chance(random, 0.7)) {
    if (chance(random, 0.4)) schema.minLength = Math.floor(random() * 4);
    if (chance(random, 0.4)) schema.maxLength = Math.floor(random() * 6);
    if (chance(random, 0.4)) schema.pattern = pick(random, PATTERNS);
  }
  if ((has('number') || has('integer')) && chance(random, 0.7)) {
    for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'])
      if (chance(random, 0.3)) schema[key] = pick(random, NUMBERS.slice(0, 10));
    if (chance(random, 0.25)) schema.multipleOf = pick(random, [1, 2, 0.5, 0.1, 3]);
  }
  if (chance(random, 0.12)) {
    schema.enum = [
      ...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => primitiveValue(random))),
    ];
  }
  if (chance(random, 0.05)) schema.const = primitiveValue(random);
  if (depth < 2 && chance(random, 0.1))
    schema.anyOf = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      randomSchema(random, depth + 1),
    );
  if (depth < 2 && chance(random, 0.08))
    schema.oneOf = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      randomSchema(random, depth + 1),
    );
  if (chance(random, 0.3)) schema.description = 'a field';
  if (chance(random, 0.05)) schema.title = 'Title';
  if (chance(random, 0.05)) schema.default = randomValue(random, 2);
  return schema;
}

/**
 * Values aimed at `schema`: one built to fit it (often valid), the same with one part changed,
 * and random values, so that both verdicts and every keyword's errors come up.
 */
export function valuesFor(schema: unknown, random: () => number, count: number): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const aimed = aimedValue(schema, random, 0);
    values.push(i % 3 === 2 ? randomValue(random) : i % 3 === 1 ? perturb(aimed, random) : aimed);
  }
  return values;
}

function aimedValue(schema: unknown, random: () => number, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 4) return randomValue(random, 3);
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && chance(random, 0.7)) return pick(random, s.enum);
  if ('const' in s && chance(random, 0.7)) return s.const;
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : TYPES;
  switch (pick(random, types)) {
    case 'object': {
      const object: Record<string, unknown> = {};
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      for (const [name, sub] of Object.entries(properties))
        if (chance(random, 0.8)) object[name] = aimedValue(sub, random, depth + 1);
      for (const name of (s.required ?? []) as string[])
        if (!(name in object) && chance(random, 0.8)) object[name] = randomValue(random, 3);
      if (chance(random, 0.2)) object[pick(random, NAMES)] = randomValue(random, 3);
      return object;
    }
    case 'array':
      return Array.from({ length: Math.floor(random() * 4) }, () => aimedValue(s.items, random, depth + 1));
    case 'string':
      return pick(random, STRINGS);
    case 'integer':
      return pick(random, [0, 1, 2, 3, 10, -7, 100]);
    case 'number':
      return pick(random, NUMBERS);
    case 'boolean':
      return chance(random, 0.5);
    case 'null':
      return null;
    default:
      return randomValue(random, 3);
  }
}

function perturb(value: unknown, random: () => number): unknown {
  if (Array.isArray(value) && value.length > 0 && chance(random, 0.7)) {
    const copy = [...value];
    copy[Math.floor(random() * copy.length)] = perturb(copy[Math.floor(random() * copy.length)], random);
    return copy;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && chance(random, 0.8)) {
    const copy: Record<string, unknown> = { ...value };
    const keys = Object.keys(copy);
    const r = random();
    if (r < 0.3 && keys.length > 0) delete copy[pick(random, keys)];
    else if (r < 0.7 && keys.length > 0) {
      const key = pick(random, keys);
      copy[key] = perturb(copy[key], random);
    } else copy[pick(random, NAMES)] = randomValue(random, 3);
    return copy;
  }
  return randomValue(random, 2);
}
