// How the APIs say a request is longer than the model's context window: OpenAI (and servers copying
// it) by code, Anthropic ("prompt is too long: N tokens > M maximum") and Gemini ("The input token
// count (N) exceeds the maximum number of tokens allowed (M)") only in words.
const CODES: ReadonlySet<string> = new Set(['context_length_exceeded', 'model_context_window_exceeded']);
const WORDS =
  /maximum context length|context window|context length|prompt is too long|exceeds the maximum number of tokens/i;

/**
 * Whether a refused request was refused for being longer than the model's context window: the
 * conversation of a long session outgrew it, which the request's author can only fix by sending less.
 */
export function isContextOverflow(
  facts: { code?: string; type?: string },
  status: number | undefined,
  apiMessage: string | undefined,
): boolean {
  if (status !== undefined && status !== 400 && status !== 413) return false;
  const { code, type } = facts;
  if ((code && CODES.has(code)) || (type && CODES.has(type))) return true;
  return apiMessage !== undefined && WORDS.test(apiMessage);
}
