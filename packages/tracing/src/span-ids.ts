// Ids drawn from Math.random, as the SDK's own RandomIdGenerator does (ids need to be unique, not
// secret), turned into hex digits through a table: Buffer's hex conversion and a crypto source cost
// more than the rest of a span. An id is made as ONE flat string by String.fromCharCode: joined
// pieces would be a tree of strings (three objects per id, more for a trace id) that the collector
// copies while the span waits for its batch.
const DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

function hex64(high: number, low: number): string {
  return String.fromCharCode(
    DIGITS[high >>> 28],
    DIGITS[(high >>> 24) & 15],
    DIGITS[(high >>> 20) & 15],
    DIGITS[(high >>> 16) & 15],
    DIGITS[(high >>> 12) & 15],
    DIGITS[(high >>> 8) & 15],
    DIGITS[(high >>> 4) & 15],
    DIGITS[high & 15],
    DIGITS[low >>> 28],
    DIGITS[(low >>> 24) & 15],
    DIGITS[(low >>> 20) & 15],
    DIGITS[(low >>> 16) & 15],
    DIGITS[(low >>> 12) & 15],
    DIGITS[(low >>> 8) & 15],
    DIGITS[(low >>> 4) & 15],
    DIGITS[low & 15],
  );
}

function random32(): number {
  return (Math.random() * 0x100000000) >>> 0;
}

/** A random 8-byte span id as 16 lowercase hex digits, never all zeros (W3C Trace Context). */
export function newSpanId(): string {
  const high = random32();
  // All zeros is no valid id: the low word is then made non-zero.
  const low = random32() || (high === 0 ? 1 : 0);
  return hex64(high, low);
}

/** A random 16-byte trace id as 32 lowercase hex digits, never all zeros. */
export function newTraceId(): string {
  // Made once per trace and shared by its spans: a joined string here is one object more per trace.
  return newSpanId() + newSpanId();
}
