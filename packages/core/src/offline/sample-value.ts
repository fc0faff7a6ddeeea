import type { JsonSchema } from '../model.js';

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '12:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': '/example',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.com',
  duration: 'PT1M',
};

/**
 * A deterministic value that satisfies a JSON Schema's common keywords: `const`, `enum`,
 * `default`, `examples`, `type`, `format`, numeric bounds, string and array lengths and
 * `required` properties. Used by the offline `auto` and `echo` models to call tools and to
 * answer with structured output without a real model.
 */
export function sampleValue(schema: JsonSchema | boolean | undefined, depth = 0): unknown {
  if (schema === undefined || typeof schema === 'boolean' || depth > 8) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return sampleValue(options[0] as JsonSchema, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return sampleValue(Object.assign({}, ...(schema.allOf as JsonSchema[])) as JsonSchema, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')) {
    case 'object':
      return sampleObject(schema, depth);
    case 'array': {
      const count = Math.max(1, Number(schema.minItems ?? 1));
      const items = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
      return Array.from({ length: Math.max(count, items.length) }, (_, i) =>
        sampleValue(items[i] ?? (schema.items as JsonSchema | undefined) ?? { type: 'string' }, depth + 1),
      );
    }
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return sampleString(schema);
  }
}

function sampleObject(schema: JsonSchema, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    // Optional properties are filled too when they are cheap and safe, so tools see realistic input.
    if (required.has(key) || depth === 0) out[key] = sampleValue(property, depth + 1);
  }
  for (const key of required) if (!(key in out)) out[key] = 'value';
  return out;
}

function sampleNumber(schema: JsonSchema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  let value = min ?? (exclusiveMin !== undefined ? exclusiveMin + (integer ? 1 : 0.5) : 1);
  if (max !== undefined && value > max) value = max;
  if (exclusiveMax !== undefined && value >= exclusiveMax) value = exclusiveMax - (integer ? 1 : 0.5);
  if (integer) value = Math.ceil(value);
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : undefined;
  if (step) value = Math.ceil(value / step) * step;
  return value;
}

function sampleString(schema: JsonSchema): string {
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  let value = format ?? 'example';
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (value.length < minLength) value = value.padEnd(minLength, 'x');
  if (value.length > maxLength) value = value.slice(0, maxLength);
  return value;
}
