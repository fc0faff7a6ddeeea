import type { Context } from 'hono';
import { errorBody, openaiErrorBody } from './http-error.js';

/**
 * An error answer in the shape the client of that path reads: OpenAI's (`type` and `param` beside
 * `code` and `message`) under `/v1/`, where the OpenAI SDKs parse it, this server's own elsewhere.
 * Every error, the guards' and the fallbacks' included, is answered through here.
 */
export function errorResponse(
  c: Context,
  status: number,
  code: string,
  message: string,
  param?: string,
): Response {
  const body = c.req.path.startsWith('/v1/')
    ? openaiErrorBody(status, code, message, param)
    : errorBody(code, message);
  return c.json(body, status as 400);
}
