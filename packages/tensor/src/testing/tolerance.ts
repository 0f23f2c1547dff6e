import type { DType } from "../ir/dtype.ts";

/** Precision of the float dtypes the conformance suite runs in. */
export type FloatDType = "f32" | "f64";

/**
 * How far a backend may be from the oracle, per output element:
 *   |got − want| ≤ ulps · eps(dtype) · max(|want|, |scale|) + atol
 * where `scale` is an optional per-case error scale (for a sum, Σ|x| times the count; for a
 * matmul, |A|·|B| times k), so ill-conditioned results get room in proportion to their condition.
 */
export interface Tolerance {
  readonly ulps: number;
  readonly atol: number;
}

/** Machine epsilon of a float dtype. */
export function epsOf(dtype: FloatDType): number {
  return dtype === "f32" ? 2 ** -23 : 2 ** -52;
}

/** Correctly rounded ops (+ − × ÷ sqrt, copies, comparisons): a couple of ulps. */
export function exactTol(dtype: FloatDType): Tolerance {
  return { ulps: 2, atol: 0 };
}

/** exp, log, tanh, …: GPU f32 builtins promise a few ulps (trig only an absolute 2⁻¹¹ on [−π, π]). */
export function transcendentalTol(dtype: FloatDType): Tolerance {
  return dtype === "f32" ? { ulps: 16, atol: 1e-6 } : { ulps: 64, atol: 1e-300 };
}

/** sin and cos: absolute error in f32, as the Vulkan spec allows. */
export function trigTol(dtype: FloatDType): Tolerance {
  return dtype === "f32" ? { ulps: 16, atol: 2 ** -11 } : { ulps: 64, atol: 1e-15 };
}

/** Special functions (erf, lgamma, polygamma): series and asymptotic expansions differ between implementations. */
export function specialTol(dtype: FloatDType): Tolerance {
  return dtype === "f32" ? { ulps: 256, atol: 1e-5 } : { ulps: 4096, atol: 1e-13 };
}

/** Results accumulated over many terms; pair with a scale that carries the count and magnitudes. */
export function accumulatedTol(dtype: FloatDType): Tolerance {
  return dtype === "f32" ? { ulps: 4, atol: 1e-6 } : { ulps: 4, atol: 1e-300 };
}

/** Loose but meaningful: compositions of many ops (fused chains, recurrences). */
export function compositeTol(dtype: FloatDType, ops: number): Tolerance {
  return dtype === "f32" ? { ulps: 16 * ops, atol: 1e-5 } : { ulps: 64 * ops, atol: 1e-13 };
}

/** Bools and ints compare exactly. */
export function isExactDType(d: DType): boolean {
  return d === "bool" || d === "i32";
}

/** The first element where `got` is out of tolerance, or undefined. NaN matches NaN; infinities must match. */
export function firstMismatch(
  got: ArrayLike<number>, want: ArrayLike<number>, dtype: DType, precision: FloatDType, tol: Tolerance, scale?: ArrayLike<number>,
): { index: number; got: number; want: number; allowed: number } | undefined {
  const eps = epsOf(precision);
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (Object.is(g, w) || g === w) continue;
    if (Number.isNaN(w) && Number.isNaN(g)) continue;
    if (isExactDType(dtype) || !Number.isFinite(w) || !Number.isFinite(g)) return { index: i, got: g, want: w, allowed: 0 };
    const s = scale ? Math.abs(scale.length === 1 ? scale[0]! : scale[i]!) : 0;
    const allowed = tol.ulps * eps * Math.max(Math.abs(w), s) + tol.atol;
    if (!(Math.abs(g - w) <= allowed)) return { index: i, got: g, want: w, allowed };
  }
  return undefined;
}
