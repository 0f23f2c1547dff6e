// IEEE 754 binary16 ("half", GLSL float16_t) conversion for data stored in 16 bits on the device.
// Rounded straight from the f64 value: going through Math.fround first would round twice, and a
// value just past an f16 midpoint in f64 can land exactly on it in f32 and then round to even the
// wrong way. Node 20 has neither Math.f16round nor Float16Array, so the conversion is written here.

/** Largest finite binary16 value. */
export const FLOAT16_MAX = 65504;

/** Relative rounding error bound of a normal binary16 value (half an ulp of 1: 2^-11). */
export const FLOAT16_EPSILON = 2 ** -11;

// Nearest integer to v ≥ 0, ties to even (v - floor(v) is exact for the magnitudes used here).
function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
}

/** The binary16 bit pattern nearest to `x` (round to nearest, ties to even; beyond ±65520 is ±infinity, NaN a quiet NaN). */
export function float16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  // 65520 is the midpoint between 65504 and 2^16; its tie goes to the even side, infinity.
  if (a >= 65520) return sign | 0x7c00;
  // Subnormals are whole multiples of 2^-24 (the scaling by a power of two is exact); a result of
  // 1024 is the smallest normal number, whose bit pattern follows on.
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  // Math.log2 may be off by one next to a power of two.
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  // The significand with 10 fraction bits; 2048 (rounding up to the next power of two) carries
  // into the exponent field by the addition.
  const m = roundHalfEven((a / 2 ** e) * 1024);
  return sign | (((e + 15) << 10) + m - 1024);
}

/** The value of a binary16 bit pattern. */
export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m === 0 ? sign * Infinity : NaN;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** `x` rounded to the nearest binary16 value, as a number (what a float16_t buffer gives back as float). */
export function roundToFloat16(x: number): number {
  return float16Value(float16Bits(x));
}

/**
 * Values as the bytes of a float16_t storage buffer, padded to a whole number of 4-byte words
 * (buffer sizes and std430 strides are counted in words elsewhere).
 */
export function toFloat16Bytes(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length + (values.length % 2));
  for (let i = 0; i < values.length; i++) out[i] = float16Bits(values[i]!);
  return out;
}
