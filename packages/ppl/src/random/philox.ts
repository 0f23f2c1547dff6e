/**
 * Philox4x32-10: the counter-based generator of Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3" (SC'11), bit-exact with Random123 and NumPy.
 *
 * Everything here is 32-bit unsigned integer arithmetic so that the GLSL
 * prelude can reproduce it word for word: the low half of a 32×32 product is
 * `Math.imul`, the high half is assembled from 16-bit halves (no BigInt, no
 * 64-bit integers), exactly as a shader without `umulExtended` would do it.
 */

/** Philox4x32's round multipliers and key increments (Random123's), shared with philox-graph.ts. */
export const PHILOX_CONSTANTS = { M0: 0xd2511f53, M1: 0xcd9e8d57, W0: 0x9e3779b9, W1: 0xbb67ae85 } as const;
const { M0, M1, W0, W1 } = PHILOX_CONSTANTS;

/** High 32 bits of the 64-bit product of two unsigned 32-bit integers. */
export function mulhi32(a: number, b: number): number {
  // b split in 16-bit halves: a·bLo and a·bHi + ⌊a·bLo / 2¹⁶⌋ stay below 2⁵³, exact in a double, and
  // ⌊a·b / 2³²⌋ = ⌊(a·bHi + ⌊a·bLo / 2¹⁶⌋) / 2¹⁶⌋; two products where four were (this is Philox's inner loop).
  const ua = a >>> 0;
  const t = ua * (b & 0xffff);
  return Math.floor((ua * (b >>> 16) + Math.floor(t / 65536)) / 65536) >>> 0;
}

/** Low 32 bits of the product of two unsigned 32-bit integers. */
export function mullo32(a: number, b: number): number {
  return Math.imul(a, b) >>> 0;
}

/**
 * Philox4x32-10 block: encrypts counter (c0..c3) under key (k0, k1) and writes
 * the four output words to out[0..3] (as unsigned 32-bit integers).
 */
export function philox4x32(
  c0: number,
  c1: number,
  c2: number,
  c3: number,
  k0: number,
  k1: number,
  out: Uint32Array,
): void {
  let x0 = c0 >>> 0;
  let x1 = c1 >>> 0;
  let x2 = c2 >>> 0;
  let x3 = c3 >>> 0;
  let key0 = k0 >>> 0;
  let key1 = k1 >>> 0;
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      // The key schedule ("bump") happens between rounds, not before the first.
      key0 = (key0 + W0) >>> 0;
      key1 = (key1 + W1) >>> 0;
    }
    const hi0 = mulhi32(M0, x0);
    const lo0 = mullo32(M0, x0);
    const hi1 = mulhi32(M1, x2);
    const lo1 = mullo32(M1, x2);
    x0 = (hi1 ^ x1 ^ key0) >>> 0;
    x1 = lo1;
    x2 = (hi0 ^ x3 ^ key1) >>> 0;
    x3 = lo0;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}
