import type { Context } from 'hono';
import { HttpError } from './http-error.js';

/** The request's JSON object body, or a 400 naming what is wrong with it. */
export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'bad_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'bad_json', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** An optional string field of a body, or a 400 naming the field. */
export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length === 0)
    throw new HttpError(400, 'bad_request', `\`${field}\` must be a non-empty string`);
  return value;
}

/** An optional boolean field of a body, or a 400 naming the field (`"stream": "no"` is not false). */
export function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw new HttpError(400, 'bad_request', `\`${field}\` must be true or false`);
  return value;
}
