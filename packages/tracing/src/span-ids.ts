// Ids drawn from Math.random, as the SDK's own RandomIdGenerator does (ids need to be unique, not
// secret), turned into hex through a table: Buffer's hex conversion and a crypto source cost more
// than the rest of a span.
const HEX = Array.from({ length: 256 }, (_, byte) => (byte + 256).toString(16).slice(1));

function hex32(word: number): string {
  return HEX[word >>> 24] + HEX[(word >>> 16) & 0xff] + HEX[(word >>> 8) & 0xff] + HEX[word & 0xff];
}

function random32(): number {
  return (Math.random() * 0x100000000) >>> 0;
}

/** A random 8-byte span id as 16 lowercase hex digits, never all zeros (W3C Trace Context). */
export function newSpanId(): string {
  const high = random32();
  // All zeros is no valid id: the low word is then made non-zero.
  const low = random32() || (high === 0 ? 1 : 0);
  return hex32(high) + hex32(low);
}

/** A random 16-byte trace id as 32 lowercase hex digits, never all zeros. */
export function newTraceId(): string {
  return newSpanId() + newSpanId();
}
