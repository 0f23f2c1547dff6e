import { BINARY_OPS, COMPARE_OPS, REDUCE_OPS, UNARY_OPS, type Op } from "../../ir/ops.ts";
import type { TupleVjpRule, VjpRule } from "../rule.ts";
import { betaincGradRule, betaincRule, binaryRule, castRule, compareRule, polygammaRule, selectRule, unaryRule } from "./elementwise.ts";
import { choleskyRule, eighRule, matmulRule, slogdetRule, solveRule, triangularSolveRule } from "./linalg.ts";
import {
  broadcastToRule, concatRule, cumsumRule, gatherRule, padRule, reshapeRule, scatterAddRule, sliceRule, transposeRule,
} from "./movement.ts";
import { lpdfSumRule } from "./lpdf-sum.ts";
import { reduceRule } from "./reduce.ts";
import { scanRule } from "./scan.ts";

// Leaves have no inputs, so nothing flows past them.
const leafRule: VjpRule = () => [];

// tuple_get is handled by the transform itself (it routes the cotangent into the scan's output slot);
// the entry exists so the table covers every op.
const tupleGetRule: VjpRule = () => [null];

// argsort's output is integer indices, piecewise constant in x: sort's gradient flows through the gather that applies them.
const argsortRule: VjpRule = () => [null];

/** The vjp rule of every single-output op, keyed by op. */
export const RULES: Record<Exclude<Op, "scan">, VjpRule> = {
  param: leafRule,
  data: leafRule,
  const: leafRule,
  arg: leafRule,
  ...(Object.fromEntries(UNARY_OPS.map((op) => [op, unaryRule(op)])) as Record<(typeof UNARY_OPS)[number], VjpRule>),
  ...(Object.fromEntries(BINARY_OPS.map((op) => [op, binaryRule(op)])) as Record<(typeof BINARY_OPS)[number], VjpRule>),
  ...(Object.fromEntries(COMPARE_OPS.map((op) => [op, compareRule])) as Record<(typeof COMPARE_OPS)[number], VjpRule>),
  ...(Object.fromEntries(REDUCE_OPS.map((op) => [op, reduceRule(op)])) as Record<(typeof REDUCE_OPS)[number], VjpRule>),
  select: selectRule,
  cast: castRule,
  polygamma: polygammaRule,
  betainc: betaincRule,
  betainc_grad: betaincGradRule,
  matmul: matmulRule,
  reshape: reshapeRule,
  broadcast_to: broadcastToRule,
  transpose: transposeRule,
  slice: sliceRule,
  concat: concatRule,
  pad: padRule,
  gather: gatherRule,
  scatter_add: scatterAddRule,
  cumsum: cumsumRule,
  argsort: argsortRule,
  tuple_get: tupleGetRule,
  cholesky: choleskyRule,
  triangular_solve: triangularSolveRule,
  solve: solveRule,
  slogdet: slogdetRule,
  eigh: eighRule,
  lpdf_sum: lpdfSumRule,
};

/** The vjp rules of ops with several outputs. */
export const TUPLE_RULES: Record<"scan", TupleVjpRule> = { scan: scanRule };

/** True when `op` has a vjp rule. */
export function hasRule(op: string): boolean {
  return Object.hasOwn(RULES, op) || Object.hasOwn(TUPLE_RULES, op);
}
