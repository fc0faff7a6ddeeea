// The longest string V8 makes (2^29 - 24 UTF-16 units): text of a JSON file past it cannot be
// held as one string, so `JSON.parse` never sees it.
const LONGEST_STRING = 2 ** 29 - 24;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Parses UTF-8 JSON bytes as `JSON.parse` would their text, for any length: a value whose bytes
 * fit in one string is handed to `JSON.parse` whole; a longer object or array (a session export
 * over 512 MB) is taken apart member by member, each parsed the same way. Throws a `SyntaxError`
 * naming the byte where the JSON is wrong. `longest` (bytes) is for tests.
 *
 * @example
 * const data = parseJsonBytes(await readFile(file));
 */
export function parseJsonBytes(bytes: Uint8Array, longest = LONGEST_STRING): unknown {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length <= longest) return parseSlice(buffer, 0, buffer.length);
  const start = skipSpace(buffer, 0);
  const end = valueEnd(buffer, start);
  if (skipSpace(buffer, end) !== buffer.length) throw unexpected(buffer, skipSpace(buffer, end));
  return parseValue(buffer, start, end, longest);
}

function parseValue(buffer: Buffer, start: number, end: number, longest: number): unknown {
  if (end - start <= longest) return parseSlice(buffer, start, end);
  const open = buffer[start];
  // A string longer than any string can be fails here, saying so.
  if (open !== OPEN_OBJECT && open !== OPEN_ARRAY) return parseSlice(buffer, start, end);
  const object = open === OPEN_OBJECT;
  const close = object ? CLOSE_OBJECT : CLOSE_ARRAY;
  const out: Record<string, unknown> | unknown[] = object ? {} : [];
  let at = skipSpace(buffer, start + 1);
  if (buffer[at] === close) return out;
  for (;;) {
    let key = '';
    if (object) {
      if (buffer[at] !== QUOTE) throw unexpected(buffer, at);
      const keyEnd = valueEnd(buffer, at);
      key = parseSlice(buffer, at, keyEnd) as string;
      at = skipSpace(buffer, keyEnd);
      if (buffer[at] !== COLON) throw unexpected(buffer, at);
      at = skipSpace(buffer, at + 1);
    }
    const valueStop = valueEnd(buffer, at);
    const value = parseValue(buffer, at, valueStop, longest);
    // As JSON.parse does: an own property, "__proto__" included, a later duplicate winning.
    if (object)
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else (out as unknown[]).push(value);
    at = skipSpace(buffer, valueStop);
    if (buffer[at] === close) return out;
    if (buffer[at] !== COMMA) throw unexpected(buffer, at);
    at = skipSpace(buffer, at + 1);
  }
}

function parseSlice(buffer: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buffer.toString('utf8', start, end));
  } catch (error) {
    throw start === 0 && end === buffer.length
      ? error
      : new SyntaxError(`in the value at byte ${start}: ${(error as Error).message}`);
  }
}

// Where the value starting at `start` ends (exclusive): strings and nesting are followed, and
// anything malformed inside is left for JSON.parse of the value to report.
function valueEnd(buffer: Buffer, start: number): number {
  const first = buffer[start];
  if (first === undefined) throw new SyntaxError('Unexpected end of JSON input');
  if (first === QUOTE) return stringEnd(buffer, start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let at = start;
    while (at < buffer.length && !isDelimiter(buffer[at]!)) at++;
    return at;
  }
  let depth = 0;
  for (let at = start; at < buffer.length; at++) {
    const byte = buffer[at];
    if (byte === QUOTE) at = stringEnd(buffer, at) - 1;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  throw new SyntaxError(`Unexpected end of JSON input (the value at byte ${start} is not closed)`);
}

function stringEnd(buffer: Buffer, start: number): number {
  for (let at = start + 1; at < buffer.length; at++) {
    const byte = buffer[at];
    if (byte === BACKSLASH) at++;
    else if (byte === QUOTE) return at + 1;
  }
  throw new SyntaxError(`Unterminated string in JSON at byte ${start}`);
}

function skipSpace(buffer: Buffer, from: number): number {
  let at = from;
  while (at < buffer.length && isSpace(buffer[at]!)) at++;
  return at;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isDelimiter(byte: number): boolean {
  return isSpace(byte) || byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY;
}

function unexpected(buffer: Buffer, at: number): SyntaxError {
  if (at >= buffer.length) return new SyntaxError('Unexpected end of JSON input');
  return new SyntaxError(
    `Unexpected character ${JSON.stringify(String.fromCharCode(buffer[at]!))} in JSON at byte ${at}`,
  );
}
