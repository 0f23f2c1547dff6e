import { GraphError, type DType, type Node } from "@ppl/tensor";
import { glslType, literal } from "../glsl.ts";

/**
 * A reduction as GLSL over a per-thread state: fold elements in, merge two states, finish. One
 * thread folding every element is the serial reduction; parallel reductions fold slices in
 * separate threads and merge the states in a fixed tree. Sum, prod, max and min keep one value;
 * logsumexp keeps the pair (running max m, sum of exp(x - m)).
 */
export interface ReduceMonoid {
  /** GLSL type of every state component. */
  readonly type: string;
  readonly dtype: DType;
  /** The identity state, one literal per component. */
  readonly identity: readonly string[];
  /** Statements folding the element `v` into state `s`. */
  fold(s: readonly string[], v: string): string[];
  /** Statements merging state `b` into state `a` (a := a ⊕ b). */
  merge(a: readonly string[], b: readonly string[]): string[];
  /** Statements leaving every lane of a subgroup with the subgroup's merged state (needs subgroup arithmetic and vote). */
  subgroup(s: readonly string[]): string[];
  /** GLSL expression of the reduction's value from state `s`. */
  finish(s: readonly string[]): string;
}

/** The monoid of a reduce node. */
export function reduceMonoid(node: Node): ReduceMonoid {
  return monoidFor(node.op, node.dtype);
}

/** The monoid of a reduce op in a dtype (a matmul's inner sum is reduce_sum's). */
export function monoidFor(op: string, dtype: DType): ReduceMonoid {
  const T = glslType(dtype);
  const lit = (v: number) => literal(v, dtype);
  const isInt = dtype === "i32";
  const single = (init: number, op: (a: string, b: string) => string, sg: (a: string) => string): ReduceMonoid => ({
    type: T,
    dtype,
    identity: [lit(init)],
    fold: ([s], v) => [`${s} = ${op(s!, v)};`],
    merge: ([a], [b]) => [`${a} = ${op(a!, b!)};`],
    subgroup: ([s]) => [`${s} = ${sg(s!)};`],
    finish: ([s]) => s!,
  });
  // GLSL's max/min leave NaN handling undefined; a NaN anywhere in the subgroup must win.
  const nanWins = (s: string, op: string) => (isInt ? `${op}(${s})` : `(subgroupAny(ppl_isnan(${s})) ? ${lit(NaN)} : ${op}(${s}))`);
  switch (op) {
    case "reduce_sum": return single(0, (a, b) => `${a} + ${b}`, (s) => `subgroupAdd(${s})`);
    case "reduce_prod": return single(1, (a, b) => `${a} * ${b}`, (s) => `subgroupMul(${s})`);
    // ±∞ has no i32 literal (it would print as 0): integer max and min start from the i32 extremes.
    case "reduce_max": return single(isInt ? -2147483648 : -Infinity, (a, b) => (isInt ? `max(${a}, ${b})` : `ppl_max(${a}, ${b})`), (s) => nanWins(s, "subgroupMax"));
    case "reduce_min": return single(isInt ? 2147483647 : Infinity, (a, b) => (isInt ? `min(${a}, ${b})` : `ppl_min(${a}, ${b})`), (s) => nanWins(s, "subgroupMin"));
    case "reduce_logsumexp": return logsumexpMonoid(dtype);
    default: throw new GraphError(`reduce: unknown op ${op}`);
  }
}

function logsumexpMonoid(dtype: DType): ReduceMonoid {
  const T = glslType(dtype);
  const lit = (v: number) => literal(v, dtype);
  return {
    type: T,
    dtype,
    identity: [lit(-Infinity), lit(0)],
    fold: ([m, acc], v) => [
      // Rescale the sum when the max grows; an infinite max makes the sum irrelevant (finish returns m).
      `if (${v} > ${m}) { ${acc} = ${acc} * ppl_exp(${m} - ${v}) + ${lit(1)}; ${m} = ${v}; }`,
      `else if (!isinf(${m}) || ${m} > 0) { ${acc} += ppl_exp(${v} - ${m}); }`,
      `if (isnan(${v})) { ${m} = ${v}; }`,
    ],
    merge: ([m, acc], [m2, acc2]) => [
      `if (ppl_isnan(${m}) || ppl_isnan(${m2})) { ${m} = ${lit(NaN)}; }`,
      `else { ${T} mx = max(${m}, ${m2}); if (!ppl_isinf(mx)) { ${acc} = ${acc} * ppl_exp(${m} - mx) + ${acc2} * ppl_exp(${m2} - mx); } ${m} = mx; }`,
    ],
    subgroup: ([m, acc]) => [
      `{ bool anyNan = subgroupAny(ppl_isnan(${m})); ${T} mx = subgroupMax(${m});`,
      `  ${T} scaled = ppl_isinf(mx) ? ${lit(0)} : ${acc} * ppl_exp(${m} - mx);`,
      `  ${acc} = subgroupAdd(scaled); ${m} = anyNan ? ${lit(NaN)} : mx; }`,
    ],
    finish: ([m, acc]) => `((isinf(${m}) || isnan(${m})) ? ${m} : ${m} + ppl_log(${acc}))`,
  };
}
