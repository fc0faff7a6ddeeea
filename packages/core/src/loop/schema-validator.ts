import { boundedRegExp, testWithin } from '../bounded-regexp.js';
import type { JsonSchema } from '../model.js';
import { compilePlainSchema, type SchemaError } from './plain-schema.js';

/** The outcome of checking a value against a JSON Schema. */
export type SchemaCheck = { ok: true } | { ok: false; errors: string[] };

/** A compiled check of values against one JSON Schema. */
export type SchemaValidator = (value: unknown) => SchemaCheck;

type AjvInstance = {
  compile(schema: object): ((value: unknown) => boolean) & {
    errors?: Array<Omit<SchemaError, 'message'> & { message?: string }> | null;
  };
  removeSchema(schema: object): unknown;
};

let ajvPromise: Promise<AjvInstance> | undefined;

// ajv costs tens of milliseconds to load; a run that calls no tool never pays for it.
function loadAjv(): Promise<AjvInstance> {
  ajvPromise ??= (async () => {
    const [{ Ajv2020 }, formats] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
    // A schema's `pattern` runs on what the model wrote, within a time budget (see boundedRegExp).
    const regExp = Object.assign(
      (pattern: string, flags: string) => {
        const bounded = boundedRegExp(new RegExp(pattern, flags));
        return { test: (text: string) => testWithin(bounded, text) };
      },
      { code: 'boundedRegExp' },
    );
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, code: { regExp } });
    (formats.default as unknown as (ajv: unknown) => void)(ajv);
    return ajv as unknown as AjvInstance;
  })();
  return ajvPromise;
}

// Promises, not validators, are cached: N runs that start together with the same cold schema all
// wait on one compile instead of each compiling it after `await loadAjv()`.
const cache = new WeakMap<JsonSchema, Promise<SchemaValidator>>();
const byText = new Map<string, Promise<SchemaValidator>>();
// The validators already compiled, for callers that can skip a wait when there is nothing to wait for.
const ready = new WeakMap<JsonSchema, SchemaValidator>();
// Schemas that need Ajv, so that asking again does not walk them again.
const needsAjv = new WeakSet<JsonSchema>();

/**
 * The validator of `schema` when it is ready without waiting: a plain schema is compiled here and
 * now (no Ajv), any other once {@link schemaValidator} has compiled it; else undefined.
 */
export function compiledValidator(schema: JsonSchema): SchemaValidator | undefined {
  const made = ready.get(schema);
  if (made || needsAjv.has(schema)) return made;
  const check = compilePlainSchema(withoutOtherDialect(schema));
  if (!check) {
    needsAjv.add(schema);
    return undefined;
  }
  const validator: SchemaValidator = (value) => {
    const errors = check(value);
    return errors.length === 0 ? VALID : invalid(errors);
  };
  ready.set(schema, validator);
  return validator;
}

const VALID: SchemaCheck = { ok: true };

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

// Tool schemas often say `$schema: draft-07` (most MCP servers do); the 2020-12 validator refuses
// a dialect it does not hold, while what tools write is read the same in both. So the marker goes.
function withoutOtherDialect(schema: JsonSchema): JsonSchema {
  const dialect = schema.$schema;
  if (dialect === undefined || (typeof dialect === 'string' && DRAFT_2020.test(dialect))) return schema;
  const { $schema: _other, ...rest } = schema;
  return rest;
}

/** Compiles (once per schema, however many callers ask at once) a validator that reports every error in plain words. */
export function schemaValidator(schema: JsonSchema): Promise<SchemaValidator> {
  const cached = cache.get(schema);
  if (cached) return cached;
  const plain = compiledValidator(schema);
  if (plain) {
    const made = Promise.resolve(plain);
    cache.set(schema, made);
    return made;
  }
  // A reload makes new schema objects with the same text: they share one compiled validator.
  const text = JSON.stringify(schema);
  let pending = byText.get(text);
  if (!pending) {
    pending = compile(schema);
    byText.set(text, pending);
    // A schema ajv refuses is not remembered: each caller gets the error, as before the cache.
    pending.catch(() => {
      byText.delete(text);
      cache.delete(schema);
    });
  }
  cache.set(schema, pending);
  pending.then(
    (validator) => {
      if (cache.get(schema) === pending) ready.set(schema, validator);
    },
    () => undefined,
  );
  return pending;
}

async function compile(schema: JsonSchema): Promise<SchemaValidator> {
  const ajv = await loadAjv();
  const given = withoutOtherDialect(schema);
  const check = ajv.compile(given);
  // ajv keeps every compiled schema in its own cache forever; the validator works without it.
  ajv.removeSchema(given);
  return (value) => (check(value) ? VALID : invalid(check.errors ?? []));
}

// The wording the model and the user read, the same whichever validator found the errors.
function invalid(errors: ReadonlyArray<Omit<SchemaError, 'message'> & { message?: string }>): SchemaCheck {
  return {
    ok: false,
    errors: errors.map((error) => {
      const where =
        error.instancePath === '' ? 'arguments' : `arguments${error.instancePath.replaceAll('/', '.')}`;
      const extra =
        error.params && 'allowedValues' in error.params
          ? `: ${JSON.stringify(error.params.allowedValues)}`
          : error.params && 'additionalProperty' in error.params
            ? ` ("${String(error.params.additionalProperty)}")`
            : '';
      return `${where} ${error.message ?? 'is invalid'}${extra}`;
    }),
  };
}
