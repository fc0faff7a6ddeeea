import { isUtf8 } from 'node:buffer';
import { type Diagnostic, diagnostic, FILE_START } from '../diagnostic.js';

/** Where a file stops being UTF-8 text, and why: read anyway, it would reach the model changed. */
export interface NotUtf8 {
  /** 1-based line and column (in characters) of the first byte that is not UTF-8. */
  line: number;
  col: number;
  /** What is wrong and how to fix it, to follow "is not UTF-8: ". */
  reason: string;
}

/**
 * Whether `bytes` are not the UTF-8 text agentctl reads (a file saved as UTF-16, Latin-1 or
 * Windows-1252), and where; undefined when they are. Decoded anyway, such a byte becomes U+FFFD
 * and the text reaches the model silently changed.
 */
export function notUtf8(bytes: Buffer): NotUtf8 | undefined {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return {
      line: 1,
      col: 1,
      reason: 'it is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8',
    };
  if (isUtf8(bytes)) return undefined;
  const at = firstInvalidByte(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, at - 1) + 1;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
  // Everything before `at` is UTF-8, so the column counts characters as the rest of the loader does.
  const col = bytes.subarray(lineStart, at).toString('utf8').length + 1;
  const hex = bytes[at].toString(16).toUpperCase().padStart(2, '0');
  return {
    line,
    col,
    reason: `byte 0x${hex} is not valid UTF-8 (saved as Latin-1 or Windows-1252?); save it as UTF-8`,
  };
}

/** A YAML file's {@link notUtf8} as a diagnostic at that byte (rule `encoding`). */
export function encodingProblem(bytes: Buffer, file: string): Diagnostic | undefined {
  const found = notUtf8(bytes);
  if (!found) return undefined;
  const { line, col } = found;
  const range = line === 1 && col === 1 ? FILE_START : { line, col, endLine: line, endCol: col + 1 };
  return diagnostic(file, range, 'encoding', `file is not UTF-8: ${found.reason}`);
}

// The offset of the first byte that does not start or continue a well-formed UTF-8 sequence.
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i];
    const more =
      c < 0x80
        ? 0
        : c >= 0xc2 && c <= 0xdf
          ? 1
          : c >= 0xe0 && c <= 0xef
            ? 2
            : c >= 0xf0 && c <= 0xf4
              ? 3
              : -1;
    if (more < 0) return i;
    // Overlong forms, surrogates and code points past U+10FFFF are excluded by the second byte.
    const low = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const high = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= more; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += more + 1;
  }
  return bytes.length;
}
