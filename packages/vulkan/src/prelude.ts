/**
 * The GLSL prelude: hand-written special functions, elementwise helpers and the Philox generator
 * that generated compute shaders paste in front of their own code (shaders/prelude/*.glsl).
 *
 * The math files are written once against a `REAL` type and are instantiated for float (and,
 * for f64 shaders, also for double) between a type header and real_end.glsl, which undefines the
 * header's macros again. Floating-point literals are written `R(1.25)`; this module rewrites them
 * to `1.25` or `1.25LF` (glslang cannot paste the LF suffix onto a number with `##`, and a
 * double(...) conversion of a float literal would lose the digits). So every function is an
 * overload:
 *
 *   ppl_exp(x), ppl_expm1, ppl_log, ppl_log1p, ppl_sqrt, ppl_rsqrt, ppl_sin, ppl_cos, ppl_tanh,
 *   ppl_sigmoid, ppl_softplus, ppl_log_sigmoid, ppl_erf, ppl_erfc, ppl_lgamma, ppl_digamma,
 *   ppl_abs, ppl_neg, ppl_sign, ppl_floor, ppl_ceil, ppl_square, ppl_reciprocal,
 *   ppl_isnan(x) / ppl_isinf(x) (bool), ppl_nan(x) / ppl_inf(x) (a NaN / +inf of x's type),
 *   ppl_pow(x, y), ppl_atan2(y, x), ppl_max(a, b), ppl_min(a, b), ppl_mod(a, b),
 *   ppl_polygamma(int n, x) for n = 0..3,
 *   ppl_inv_phi(p), ppl_gamma_p(a, x), ppl_gamma_q(a, x), ppl_gamma_p_da(a, x), ppl_owens_t(h, a),
 *   ppl_betainc(a, b, x), ppl_betainc_grad(a, b, x, int wrt),
 *
 * each taking and returning float or double alike. Type-named helpers: ppl_nan_f32(),
 * ppl_inf_f32(), ppl_nan_f64(), ppl_inf_f64(), and for random numbers (Philox block w = uvec4)
 * ppl_philox4x32(uvec4 counter, uvec2 key), ppl_philox_stream(key, chain, iteration, purpose,
 * sub, block), ppl_uniform_f32/_f64(uint hi, uint lo), ppl_uniform0_T(w), ppl_uniform1_T(w),
 * ppl_normal0_T(w), ppl_normal1_T(w) with T = f32 | f64.
 */

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Element types a shader computes in. */
export type PreludeDType = "f32" | "f64";

// PPL_SHADERS_DIR locates shaders/ when this module is bundled away from the repository layout;
// a packed package carries its own copy (scripts/pack-shaders.mjs), else it is the repository's.
const PACKED_PRELUDE_DIR = fileURLToPath(new URL("../shaders/prelude/", import.meta.url));
const PRELUDE_DIR = process.env.PPL_SHADERS_DIR
  ? `${process.env.PPL_SHADERS_DIR}/prelude/`
  : existsSync(PACKED_PRELUDE_DIR) ? PACKED_PRELUDE_DIR : fileURLToPath(new URL("../../../shaders/prelude/", import.meta.url));

/** Generic math files, in dependency order (each may call the ones before it). */
const GENERIC_FILES = [
  "double_word.glsl",
  "basic.glsl",
  "exp.glsl",
  "log.glsl",
  "expm1.glsl",
  "trig.glsl",
  "tanh.glsl",
  "logistic.glsl",
  "atan2.glsl",
  "pow.glsl",
  "erf.glsl",
  "lgamma.glsl",
  "digamma.glsl",
  "polygamma.glsl",
  "cdf.glsl",
  "normal.glsl",
] as const;

const cache = new Map<PreludeDType, string>();

function read(name: string): string {
  return `// ---- shaders/prelude/${name}\n${readFileSync(PRELUDE_DIR + name, "utf8")}`;
}

/** `R(1.5e-3)` literals of the generic files, with an optional minus sign inside. */
const LITERAL = /\bR\(\s*(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*\)/g;

function instantiate(dtype: PreludeDType): string {
  const header = dtype === "f64" ? "real_f64.glsl" : "real_f32.glsl";
  const text = [read(header), ...GENERIC_FILES.map(read), read("real_end.glsl")].join("\n");
  // A literal the pattern misses stays a call of the undefined function R and fails to compile.
  return text.replace(LITERAL, dtype === "f64" ? "$1LF" : "$1");
}

/**
 * The prelude source for shaders computing in `dtype`, to be pasted after the shader's
 * `#version` line (it needs GLSL 4.50 and, for f64, the shaderFloat64 device feature).
 * "f32" holds the float overloads only, so f32 shaders never declare a double; "f64" holds the
 * float and the double overloads (casts between the two types can appear in one shader).
 */
export function preludeSource(dtype: PreludeDType): string {
  let src = cache.get(dtype);
  if (src === undefined) {
    const parts = [read("philox.glsl"), instantiate("f32")];
    if (dtype === "f64") parts.push(instantiate("f64"));
    src = parts.join("\n");
    cache.set(dtype, src);
  }
  return src;
}
