/** An error that becomes an HTTP response: a status, a machine-readable code and a message for people. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The JSON body of every error answer: `{ error: { code, message } }`, never a stack trace. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
