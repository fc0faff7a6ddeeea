import { type BoundedRegExp, boundedRegExp, testWithin } from '../bounded-regexp.js';

/** One failed check, in the shape of Ajv's error objects (the fields the wording is made of). */
export type SchemaError = { instancePath: string; message: string; params?: Record<string, unknown> };

/** Appends the errors of `value` (found at `path`) to `errors`; returns whether it is valid. */
type Check = (value: unknown, path: string, errors: SchemaError[]) => boolean;

/** A check of whole values: the errors found, in Ajv's order, or an empty list. */
export type PlainSchemaCheck = (value: unknown) => SchemaError[];

// Ajv (draft 2020-12, allErrors, strict off) evaluates keywords group by group, in the order its
// vocabularies add them, whatever the order in the schema: the keywords for any type first, then
// those of numbers, strings, arrays and objects, each group only when the value has that type.
// Reproducing that order is what makes the error lists identical, not just the verdicts.
const TYPES = new Set(['object', 'string', 'number', 'integer', 'boolean', 'array', 'null']);
const NUMBER = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'];
const STRING = ['maxLength', 'minLength', 'pattern'];
const ARRAY = ['maxItems', 'minItems', 'items'];
const OBJECT = ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties'];
const GROUP_OF: Record<string, string[]> = { number: NUMBER, string: STRING, array: ARRAY, object: OBJECT };
// Annotations change no verdict, but Ajv's meta-schema still checks their type.
const ANNOTATIONS: Record<string, (value: unknown) => boolean> = {
  title: (v) => typeof v === 'string',
  description: (v) => typeof v === 'string',
  $comment: (v) => typeof v === 'string',
  deprecated: (v) => typeof v === 'boolean',
  readOnly: (v) => typeof v === 'boolean',
  writeOnly: (v) => typeof v === 'boolean',
  examples: Array.isArray,
  default: () => true,
};
const KNOWN = new Set([...NUMBER, ...STRING, ...ARRAY, ...OBJECT, 'type', 'const', 'enum', 'anyOf', 'oneOf']);
const LIMIT = { maximum: '<=', minimum: '>=', exclusiveMaximum: '<', exclusiveMinimum: '>' } as const;
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

class Unsupported extends Error {}

/**
 * Compiles a check of a plain JSON Schema (types, properties, required, additionalProperties, items,
 * enum, const, length, count and number limits, pattern, anyOf, oneOf) that gives Ajv's verdicts and
 * errors, or undefined when the schema uses anything else (then Ajv must compile it).
 */
export function compilePlainSchema(schema: unknown): PlainSchemaCheck | undefined {
  let check: Check;
  try {
    check = compile(schema, true);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  return (value) => {
    const errors: SchemaError[] = [];
    check(value, '', errors);
    return errors;
  };
}

function need(condition: boolean): void {
  if (!condition) throw new Unsupported();
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function compile(schema: unknown, top = false): Check {
  if (schema === true) return () => true;
  if (schema === false) {
    return (_value, path, errors) => {
      errors.push({ instancePath: path, message: 'boolean schema is false', params: {} });
      return false;
    };
  }
  need(isObject(schema));
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    const annotation = Object.hasOwn(ANNOTATIONS, key) ? ANNOTATIONS[key] : undefined;
    need(
      KNOWN.has(key) || annotation?.(s[key]) === true || (top && key === '$schema' && s[key] === DRAFT_2020),
    );
  }
  const types = typeList(s.type);
  const hasRules = (type: string) => GROUP_OF[type]?.some((key) => s[key] !== undefined) ?? false;
  // Ajv reports a wrong type before everything else, except for a single type that has keywords
  // of its own: then the type error takes that group's place in the order.
  const typeFirst = types.length > 0 && !(types.length === 1 && hasRules(types[0] as string));
  const checks: Check[] = [];
  if (typeFirst) checks.push(typeCheck(types, s.type));
  checks.push(...anyTypeChecks(s));
  for (const group of ['number', 'string', 'array', 'object'] as const) {
    if (!hasRules(group)) continue;
    const inGroup = groupChecks(group, s);
    const own = typeGuard(group);
    const wrongType = !typeFirst && types[0] === group ? typeCheck(types, s.type) : undefined;
    checks.push((value, path, errors) => {
      if (!own(value)) return wrongType ? wrongType(value, path, errors) : true;
      return all(inGroup, value, path, errors);
    });
  }
  return (value, path, errors) => all(checks, value, path, errors);
}

function all(checks: Check[], value: unknown, path: string, errors: SchemaError[]): boolean {
  let valid = true;
  for (const check of checks) if (!check(value, path, errors)) valid = false;
  return valid;
}

function typeList(type: unknown): string[] {
  if (type === undefined) return [];
  if (typeof type === 'string') {
    need(TYPES.has(type));
    return [type];
  }
  need(Array.isArray(type) && type.length > 0 && new Set(type).size === type.length);
  for (const t of type as unknown[]) need(typeof t === 'string' && TYPES.has(t));
  return type as string[];
}

function typeGuard(type: string): (value: unknown) => boolean {
  switch (type) {
    case 'null':
      return (v) => v === null;
    case 'array':
      return (v) => Array.isArray(v);
    case 'object':
      return isObject;
    case 'number':
      return (v) => typeof v === 'number';
    case 'integer':
      return (v) => typeof v === 'number' && !(v % 1) && !Number.isNaN(v);
    default:
      return (v) => typeof v === type;
  }
}

function typeCheck(types: string[], written: unknown): Check {
  const guards = types.map(typeGuard);
  const message = `must be ${types.join(',')}`;
  const params = { type: written };
  return (value, path, errors) => {
    if (guards.some((guard) => guard(value))) return true;
    errors.push({ instancePath: path, message, params });
    return false;
  };
}

function anyTypeChecks(s: Record<string, unknown>): Check[] {
  const checks: Check[] = [];
  // Ajv compares objects and arrays with a deep equality that throws on some values (an own
  // `toString` that is not a function): schemas listing such values are left to it.
  const primitive = (v: unknown) => typeof v !== 'object' || v === null;
  if ('const' in s) {
    const expected = s.const;
    need(primitive(expected));
    checks.push(fail((v) => v !== expected, 'must be equal to constant', { allowedValue: expected }));
  }
  if (s.enum !== undefined) {
    const allowed = s.enum;
    // Past 200 values Ajv compares with that deep equality too (NaN equals NaN): left to Ajv.
    need(Array.isArray(allowed) && allowed.length > 0 && allowed.length < 200 && allowed.every(primitive));
    const values = allowed as unknown[];
    checks.push(
      fail((v) => !values.includes(v) || Number.isNaN(v), 'must be equal to one of the allowed values', {
        allowedValues: values,
      }),
    );
  }
  if (s.anyOf !== undefined) checks.push(anyOf(s.anyOf));
  if (s.oneOf !== undefined) checks.push(oneOf(s.oneOf));
  return checks;
}

function branches(list: unknown): Check[] {
  need(Array.isArray(list) && list.length > 0);
  return (list as unknown[]).map((branch) => compile(branch));
}

// A union that holds drops the errors its branches left.
function anyOf(list: unknown): Check {
  const checks = branches(list);
  return (value, path, errors) => {
    const before = errors.length;
    for (const check of checks) {
      if (!check(value, path, errors)) continue;
      errors.length = before;
      return true;
    }
    errors.push({ instancePath: path, message: 'must match a schema in anyOf', params: {} });
    return false;
  };
}

// Like Ajv, stops at the second branch that passes and names the two in `passingSchemas`.
function oneOf(list: unknown): Check {
  const checks = branches(list);
  return (value, path, errors) => {
    const before = errors.length;
    let passing: number | number[] | null = null;
    for (let i = 0; i < checks.length; i++) {
      if (!(checks[i] as Check)(value, path, errors)) continue;
      if (passing !== null) {
        passing = [passing as number, i];
        break;
      }
      passing = i;
    }
    if (typeof passing === 'number') {
      errors.length = before;
      return true;
    }
    errors.push({
      instancePath: path,
      message: 'must match exactly one schema in oneOf',
      params: { passingSchemas: passing },
    });
    return false;
  };
}

function fail(wrong: (value: unknown) => boolean, message: string, params: Record<string, unknown>): Check {
  return (value, path, errors) => {
    if (!wrong(value)) return true;
    errors.push({ instancePath: path, message, params });
    return false;
  };
}

function groupChecks(group: 'number' | 'string' | 'array' | 'object', s: Record<string, unknown>): Check[] {
  const checks: Check[] = [];
  for (const key of GROUP_OF[group] as string[]) {
    const rule = s[key];
    if (rule === undefined) continue;
    checks.push(keywordCheck(key, rule, s));
  }
  return checks;
}

function keywordCheck(key: string, rule: unknown, s: Record<string, unknown>): Check {
  switch (key) {
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum': {
      need(typeof rule === 'number' && Number.isFinite(rule));
      const limit = rule as number;
      const op = LIMIT[key];
      const beyond =
        op === '<='
          ? (v: number) => v > limit
          : op === '>='
            ? (v: number) => v < limit
            : op === '<'
              ? (v: number) => v >= limit
              : (v: number) => v <= limit;
      return fail((v) => beyond(v as number) || Number.isNaN(v), `must be ${op} ${limit}`, {
        comparison: op,
        limit,
      });
    }
    case 'multipleOf': {
      need(typeof rule === 'number' && Number.isFinite(rule) && rule > 0);
      const divisor = rule as number;
      return fail(
        (v) => {
          const ratio = (v as number) / divisor;
          return ratio !== Number.parseInt(String(ratio), 10);
        },
        `must be multiple of ${divisor}`,
        { multipleOf: divisor },
      );
    }
    case 'maxLength':
    case 'minLength':
      return counted(key, rule, (v) => codePoints(v as string), 'characters');
    case 'maxItems':
    case 'minItems':
      return counted(key, rule, (v) => (v as unknown[]).length, 'items');
    case 'maxProperties':
    case 'minProperties':
      return counted(key, rule, (v) => Object.keys(v as object).length, 'properties');
    case 'pattern': {
      need(typeof rule === 'string');
      let regexp: BoundedRegExp;
      try {
        regexp = boundedRegExp(new RegExp(rule as string, 'u'));
      } catch {
        throw new Unsupported();
      }
      // A pattern stopped for running too long has not vouched for the value.
      return fail((v) => !testWithin(regexp, v as string), `must match pattern "${rule as string}"`, {
        pattern: rule,
      });
    }
    case 'items': {
      need(rule === true || isObject(rule));
      const item = compile(rule);
      return (value, path, errors) => {
        const list = value as unknown[];
        let valid = true;
        for (let i = 0; i < list.length; i++) if (!item(list[i], `${path}/${i}`, errors)) valid = false;
        return valid;
      };
    }
    case 'required':
      return requiredCheck(rule);
    case 'properties':
      return propertiesCheck(rule);
    default:
      return additionalCheck(rule, s.properties);
  }
}

function counted(key: string, rule: unknown, size: (value: unknown) => number, unit: string): Check {
  need(isCount(rule));
  const limit = rule as number;
  const most = key.startsWith('max');
  return fail(
    (v) => (most ? size(v) > limit : size(v) < limit),
    `must NOT have ${most ? 'more' : 'fewer'} than ${limit} ${unit}`,
    { limit },
  );
}

// Ajv counts characters by code point, a surrogate pair being one.
function codePoints(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    length++;
    const unit = text.charCodeAt(i);
    if (
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      i + 1 < text.length &&
      (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    )
      i++;
  }
  return length;
}

// Ajv reads `value[name] !== undefined`, inherited properties included; so does this.
function requiredCheck(rule: unknown): Check {
  need(
    Array.isArray(rule) &&
      rule.every((name) => typeof name === 'string') &&
      new Set(rule).size === rule.length,
  );
  const names = rule as string[];
  return (value, path, errors) => {
    const object = value as Record<string, unknown>;
    let valid = true;
    for (const name of names) {
      if (object[name] !== undefined) continue;
      errors.push({
        instancePath: path,
        message: `must have required property '${name}'`,
        params: { missingProperty: name },
      });
      valid = false;
    }
    return valid;
  };
}

function propertiesCheck(rule: unknown): Check {
  need(isObject(rule));
  const entries = Object.entries(rule as Record<string, unknown>).map(([name, sub]) => {
    need(name !== '__proto__');
    return [name, compile(sub), `/${pointer(name)}`] as const;
  });
  return (value, path, errors) => {
    const object = value as Record<string, unknown>;
    let valid = true;
    for (const [name, check, step] of entries) {
      const item = object[name];
      if (item !== undefined && !check(item, path + step, errors)) valid = false;
    }
    return valid;
  };
}

function additionalCheck(rule: unknown, properties: unknown): Check {
  if (rule === true) return () => true;
  need(rule === false || isObject(rule));
  const declared = isObject(properties) ? properties : {};
  const extra = rule === false ? undefined : compile(rule);
  return (value, path, errors) => {
    const object = value as Record<string, unknown>;
    let valid = true;
    for (const key in object) {
      if (Object.hasOwn(declared, key)) continue;
      if (extra) {
        if (!extra(object[key], `${path}/${pointer(key)}`, errors)) valid = false;
      } else {
        errors.push({
          instancePath: path,
          message: 'must NOT have additional properties',
          params: { additionalProperty: key },
        });
        valid = false;
      }
    }
    return valid;
  };
}

function pointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
