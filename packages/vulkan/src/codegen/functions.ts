import type { DType } from "@ppl/tensor";
import type { BinaryOp, CompareOp, UnaryOp } from "@ppl/tensor/ir";

/**
 * GLSL for each elementwise op, as a function of rendered operands. Float math goes through the
 * prelude (shaders/prelude), whose `ppl_*` functions are overloaded for float and double so the
 * same text serves both precisions; integer ops use GLSL built-ins.
 */
export function unaryGlsl(op: UnaryOp, x: string, dtype: DType): string {
  const isInt = dtype === "i32";
  switch (op) {
    case "neg": return `(-${x})`;
    case "abs": return `abs(${x})`;
    case "sign": return `sign(${x})`;
    case "square": return `(${x}*${x})`;
    case "not": return `(!${x})`;
    // Bit tests from the prelude: a compiler may fold x != x to false.
    case "is_nan": return `ppl_isnan(${x})`;
    case "is_finite": return `(!ppl_isnan(${x}) && !ppl_isinf(${x}))`;
    case "stop_gradient": return x;
    case "floor": return isInt ? x : `floor(${x})`;
    case "ceil": return isInt ? x : `ceil(${x})`;
    case "sqrt": return `sqrt(${x})`;
    case "rsqrt": return `(1.0/sqrt(${x}))`;
    case "reciprocal": return `(1.0/${x})`;
    default: return `ppl_${op}(${x})`;
  }
}

/** GLSL for a binary arithmetic op. */
export function binaryGlsl(op: BinaryOp, a: string, b: string, dtype: DType): string {
  const isInt = dtype === "i32";
  switch (op) {
    case "add": return `(${a}+${b})`;
    case "sub": return `(${a}-${b})`;
    case "mul": return `(${a}*${b})`;
    case "div": return `(${a}/${b})`;
    case "pow": return `ppl_pow(${a},${b})`;
    case "max": return isInt ? `max(${a},${b})` : `ppl_max(${a},${b})`;
    case "min": return isInt ? `min(${a},${b})` : `ppl_min(${a},${b})`;
    case "atan2": return `ppl_atan2(${a},${b})`;
    case "mod": return isInt ? `ppl_imod(${a},${b})` : `ppl_mod(${a},${b})`;
    case "gamma_p": return `ppl_gamma_p(${a},${b})`;
    case "gamma_q": return `ppl_gamma_q(${a},${b})`;
    case "gamma_p_da": return `ppl_gamma_p_da(${a},${b})`;
    case "owens_t": return `ppl_owens_t(${a},${b})`;
    // i32 only. GLSL's int division truncates toward zero; a zero divisor (unspecified in GLSL) is
    // given the CPU's answer, and % (whose sign rule GLSL leaves open) is not used.
    case "quotient": return `(${b}==0?0:${a}/${b})`;
    case "remainder": return `(${b}==0?${a}:${a}-${b}*(${a}/${b}))`;
    case "bit_and": return `(${a}&${b})`;
    case "bit_or": return `(${a}|${b})`;
    case "bit_xor": return `(${a}^${b})`;
    case "shift_left": return `(${a}<<(${b}&31))`;
    case "shift_right": return `(${a}>>(${b}&31))`;
  }
}

/** GLSL for a comparison or logical op. */
export function compareGlsl(op: CompareOp, a: string, b: string): string {
  const sym = { lt: "<", le: "<=", gt: ">", ge: ">=", eq: "==", ne: "!=", and: "&&", or: "||" }[op];
  return `(${a}${sym}${b})`;
}
