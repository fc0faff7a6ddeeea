import { boundedRegExp, RegExpTimeoutError } from '../bounded-regexp.js';
import { callRecorder, recordedMessage } from '../loop/recorded-call.js';
import type { Message } from '../messages.js';
import type { Middleware } from './types.js';

/** Options of {@link redaction}. */
export interface RedactionOptions {
  /** Extra patterns to replace; each must have the `g` flag. */
  patterns?: RegExp[];
  /** Leave out the built-in patterns (emails, card numbers, US SSNs, phone numbers). */
  builtins?: boolean;
  /** What a match becomes. Default `[REDACTED]`. */
  replacement?: string;
}

// An address starts where a run of its characters starts: tried from inside a run too, the run's
// end is searched for an `@` again from every character, and 50 KB of text without one took 13 s.
const BUILTIN_PATTERNS: readonly RegExp[] = [
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  /\b(?:\d[ -]?){12,18}\d\b/g,
  /\b\d{3}-\d{2}-\d{4}\b/g,
  /(?<![\w+])\+?\d{1,3}[ .-]?\(?\d{2,4}\)?[ .-]\d{3,4}[ .-]\d{3,4}\b/g,
];

/**
 * The text replacement a {@link redaction} middleware with these options makes, for anything
 * else that must show no more than it lets through (a log: `logging`'s `redact` option).
 *
 * @example
 * logging({ redact: redactor({ patterns: [/ACME-\d+/g] }) });
 */
export function redactor(options: RedactionOptions = {}): (text: string) => string {
  const builtins = options.builtins === false ? [] : BUILTIN_PATTERNS;
  // The project's own run within a time budget (see boundedRegExp).
  const own = (options.patterns ?? []).map((pattern) => boundedRegExp(pattern));
  const replacement = options.replacement ?? '[REDACTED]';
  return (text) => {
    let out = builtins.reduce((current, pattern) => current.replace(pattern, replacement), text);
    try {
      for (const pattern of own) out = pattern.replace(out, replacement);
    } catch (error) {
      // A pattern stopped on this text has not checked it: none of it is let through.
      if (error instanceof RegExpTimeoutError) return replacement;
      throw error;
    }
    return out;
  };
}

/**
 * Replaces personal data before it reaches the model or leaves it: in the messages of each
 * request (the arguments of earlier tool calls included), in tool results and in the model's
 * answers; the arguments of the model's tool calls in what the run records (see
 * `Middleware.redactsCalls`), while the tool receives them as made.
 *
 * @example
 * createAgent({ provider, middleware: [redaction({ patterns: [/ACME-\d+/g] })] });
 */
export function redaction(options: RedactionOptions = {}): Middleware {
  const redact = redactor(options);
  const redactionMarker = options.replacement ?? '[REDACTED]';
  const recordCall = callRecorder(redact, undefined);
  // Requests resend the whole history each step; cache per message so a step costs O(new messages).
  const cache = new WeakMap<Message, Message>();
  const redactMessage = (message: Message): Message => {
    let out = cache.get(message);
    if (!out) {
      out = message.content === null ? message : { ...message, content: redact(message.content) };
      // The model's earlier calls go back to it too: their arguments are what it said.
      out = recordedMessage(out, recordCall);
      cache.set(message, out);
    }
    return out;
  };
  const middleware: Middleware = async function redactionMiddleware(action, next) {
    if (action.type === 'model_call') {
      const request = action.payload.request;
      const messages = request.messages.map(redactMessage);
      const result = await next({
        ...action,
        payload: { ...action.payload, request: { ...request, messages } },
      });
      return result;
    }
    const result = await next();
    if (result.type === 'tool_result') {
      const outcome = result.payload.result;
      return {
        ...result,
        payload: { ...result.payload, result: { ...outcome, content: redact(outcome.content) } },
      };
    }
    if (result.type === 'model_response' && result.payload.response.content !== null) {
      const response = result.payload.response;
      return {
        ...result,
        payload: { ...result.payload, response: { ...response, content: redact(response.content ?? '') } },
      };
    }
    return result;
  };
  // Streamed text would show what the answer's redaction replaces before it is replaced.
  return Object.assign(middleware, { holdsAnswers: true, redactsCalls: redact, redactionMarker });
}
