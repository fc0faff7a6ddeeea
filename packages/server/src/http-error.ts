/** An error that becomes an HTTP response: a status, a machine-readable code and a message for people. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  /** The request field at fault, when one is (OpenAI's error `param`). */
  readonly param?: string;

  constructor(
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
    param?: string,
  ) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.param = param;
  }
}

/** The JSON body of every error answer: `{ error: { code, message } }`, never a stack trace. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/**
 * An error body as OpenAI's API words it, for the OpenAI-compatible routes: `code` and `message` as
 * everywhere, plus the `type` and `param` its SDKs read.
 */
export function openaiErrorBody(
  status: number,
  code: string,
  message: string,
  param?: string,
): { error: { code: string; message: string; type: string; param: string | null } } {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'server_error'
            : 'invalid_request_error';
  return { error: { code, message, type, param: param ?? null } };
}
