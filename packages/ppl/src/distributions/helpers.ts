import {
  add, all, and, broadcastTo, constant, eq, ge, le, lgamma, log, mul, reshape, select, sub, sum, type Node, type Operand,
  type Shape,
} from "@ppl/tensor";
import { broadcastShapes, lift } from "@ppl/tensor/internals";
import { checkOperand, describeValue } from "../model/arguments.ts";
import { ModelError } from "../model/errors.ts";

export { checkCount, checkOperand } from "../model/arguments.ts";

/** log(2π) / 2. */
export const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);
/** log 2 and log π, for normalizing constants. */
export const LOG_TWO = Math.LN2;
export const LOG_PI = Math.log(Math.PI);

/** Shape of an operand (numbers are scalars). */
export function shapeOf(x: Operand): Shape {
  return typeof x === "number" ? [] : x.shape;
}

/** Broadcast shape of several parameters; a mismatch is a ModelError naming the distribution. */
export function batchShapeOf(dist: string, params: Record<string, Operand>): Shape {
  for (const [k, v] of Object.entries(params)) checkOperand(dist, k, v);
  try {
    return broadcastShapes(dist, ...Object.values(params).map(shapeOf));
  } catch {
    const desc = Object.entries(params).map(([k, v]) => `${k} [${shapeOf(v).join(",")}]`).join(", ");
    throw new ModelError(`${dist}: parameter shapes do not broadcast (${desc}); give parameters of equal shape or scalars`);
  }
}

/**
 * Check a parameter: a plain number against its support now, at build time; a node's support is
 * recorded (supportChecksOf), so that a log density found −∞ or NaN at run time can say which
 * argument left its support.
 */
export function checkParam(dist: string, name: string, value: Operand, ok: (v: number) => boolean, what: string): void {
  checkOperand(dist, name, value);
  if (typeof value === "number") {
    if (!(ok(value) && !Number.isNaN(value))) throw new ModelError(`${dist}: ${name} must be ${what}, got ${value}; pass a value that is ${what}`);
    return;
  }
  const list = SUPPORT_CHECKS.get(value);
  const check = { dist, name, ok, what };
  if (list === undefined) SUPPORT_CHECKS.set(value, [check]);
  else if (!list.some((c) => c.dist === dist && c.name === name)) list.push(check);
}

/** A distribution argument's support, recorded by checkParam for a node-valued argument. */
export interface SupportCheck {
  readonly dist: string;
  readonly name: string;
  readonly ok: (v: number) => boolean;
  readonly what: string;
}

const SUPPORT_CHECKS = new WeakMap<Node, SupportCheck[]>();

/** The supports that distributions built so far require of `node` as an argument (empty if none). */
export function supportChecksOf(node: Node): readonly SupportCheck[] {
  return SUPPORT_CHECKS.get(node) ?? [];
}

/** Checks for literal parameters, used with checkParam. */
export const isPositive = (v: number) => v > 0 && Number.isFinite(v);
export const isFiniteNumber = (v: number) => Number.isFinite(v);
export const isProbability = (v: number) => v >= 0 && v <= 1;
export const isNonNegativeInt = (v: number) => Number.isInteger(v) && v >= 0;

/** Reject option keys a distribution does not know (a typo would otherwise be silently ignored). */
export function checkOptions(dist: string, opts: object | undefined, known: readonly string[]): void {
  if (opts === undefined) return;
  if (typeof opts !== "object" || opts === null || Array.isArray(opts)) {
    throw new ModelError(`${dist}: the options must be an object such as { ${known[0] ?? "name"}: … }, got ${describeValue(opts)}`);
  }
  for (const k of Object.keys(opts)) {
    if (!known.includes(k)) throw new ModelError(`${dist}: unknown argument '${k}'; the arguments are ${known.join(", ")}`);
  }
}

/** lp where `inside` holds, −∞ elsewhere. */
export function restrict(inside: Node, lp: Node): Node {
  return select(inside, lp, -Infinity);
}

/** A summed log density, −∞ unless every element is inside the support (one test of data, computed once where it reads data alone). */
export function restrictAll(inside: Node, lp: Node): Node {
  return select(all(inside), lp, -Infinity);
}

/**
 * log p[y] of an integer y from a table of log probabilities over the levels first, first+1, … on
 * its last axis (a one-hot selection, so it broadcasts over y's and the table's batches); −∞ for y
 * outside the levels, or where `valid` (the parameters' own support) is false.
 */
export function logMassAtLevel(y: Operand, logTable: Node, first: number, valid?: Node): Node {
  const k = logTable.shape[logTable.rank - 1]!;
  const levels = constant(Array.from({ length: k }, (_, i) => first + i), [k]);
  const yn = lift(y);
  const hit = eq(reshape(yn, [...yn.shape, 1]), levels);
  const inRange = and(ge(yn, first), le(yn, first + k - 1));
  return restrict(valid ? and(inRange, valid) : inRange, sum(select(hit, logTable, 0), -1));
}

/** a·log(x) with 0·log(0) = 0 (a point mass at a boundary has log weight 0, not NaN). */
export function xlogy(a: Operand, x: Operand): Node {
  return select(eq(lift(a), 0), 0, mul(a, log(x)));
}

/** log B(a, b) = lgamma(a) + lgamma(b) − lgamma(a + b). */
export function lbeta(a: Operand, b: Operand): Node {
  return sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)));
}

/** log of the binomial coefficient C(n, k). */
export function lchoose(n: Operand, k: Operand): Node {
  return sub(sub(lgamma(add(n, 1)), lgamma(add(k, 1))), lgamma(add(sub(n, k), 1)));
}

/** A number or node as a node. */
export function asNode(x: Operand): Node {
  return lift(x);
}

/** log of an operand, computed now when it is a number. */
export function logOf(x: Operand): Operand {
  return typeof x === "number" ? Math.log(x) : log(x);
}

/** An operand broadcast to a batch shape, as a node (for mean and variance). */
export function full(x: Operand, batch: Shape): Node {
  return broadcastTo(lift(x), broadcastShapes("full", shapeOf(x), batch));
}

/** Supports shared by many distributions. */
export const REAL = { kind: "real" } as const;
export const POSITIVE = { kind: "positive" } as const;
export const UNIT = { kind: "unit" } as const;
export const NONNEGATIVE_INT = { kind: "nonnegative_int" } as const;
