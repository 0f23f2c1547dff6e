import { neg, sub, add, log, select } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { broadcastTo, reshape, transpose } from "../api/shape-ops.ts";
import { isFloat } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";
import { REDUCE_OPS } from "../ir/ops.ts";
import { sameShape } from "../ir/shape.ts";
import { fillValue, isFillOf, type RewriteRule } from "./rule.ts";

/**
 * The algebraic identities `simplify` applies. Every rule keeps dtype and shape, never adds nodes,
 * and gives the same values as the reference interpreter, with one IEEE caveat shared with XLA:
 * x + 0 → x returns -0 where the sum would be +0 (equal numbers; only 1/x can tell them apart).
 *
 * Deliberately absent:
 * - x * 0 → 0 for floats: inf * 0 and NaN * 0 are NaN, and a log density must keep reporting them
 *   (Stan and JAX keep the product too). Ints fold; a float x that is constant folds by constantFold.
 * - exp(log x) → x: wrong for x < 0 (log gives NaN).
 * - x - x → 0 for floats: inf - inf is NaN.
 * - cast(cast x): a round trip through a narrower type rounds.
 */
export const SIMPLIFY_RULES: readonly RewriteRule[] = [
  {
    name: "add-zero",
    ops: ["add"],
    apply: (n) => binaryIdentity(n, 0, "both"),
  },
  {
    name: "sub-zero",
    ops: ["sub"],
    apply: (n) => binaryIdentity(n, 0, "right"),
  },
  {
    name: "mul-one",
    ops: ["mul"],
    apply: (n) => binaryIdentity(n, 1, "both"),
  },
  {
    name: "div-one",
    ops: ["div"],
    apply: (n) => binaryIdentity(n, 1, "right"),
  },
  {
    name: "pow-one",
    ops: ["pow"],
    apply: (n) => binaryIdentity(n, 1, "right"),
  },
  {
    // Only for ints: for floats x * 0 is NaN when x is inf or NaN (see above).
    name: "mul-zero-int",
    ops: ["mul"],
    apply: (n) => (!isFloat(n.dtype) && n.inputs.some((x) => isFillOf(x, 0)) ? constant(0, n.shape, n.dtype) : undefined),
  },
  {
    // Only for ints: for floats inf - inf is NaN.
    name: "sub-self-int",
    ops: ["sub"],
    apply: (n) => (!isFloat(n.dtype) && n.inputs[0] === n.inputs[1] ? constant(0, n.shape, n.dtype) : undefined),
  },
  {
    // IEEE defines a - b as a + (-b), so both directions are exact.
    name: "add-neg",
    ops: ["add"],
    apply: (n) => {
      const [a, b] = n.inputs as [Node, Node];
      if (b.op === "neg") return sub(a, b.inputs[0]!);
      if (a.op === "neg") return sub(b, a.inputs[0]!);
      return undefined;
    },
  },
  {
    name: "sub-neg",
    ops: ["sub"],
    apply: (n) => (n.inputs[1]!.op === "neg" ? add(n.inputs[0]!, n.inputs[1]!.inputs[0]!) : undefined),
  },
  {
    name: "neg-neg",
    ops: ["neg"],
    apply: (n) => (n.inputs[0]!.op === "neg" ? n.inputs[0]!.inputs[0] : undefined),
  },
  {
    name: "not-not",
    ops: ["not"],
    apply: (n) => (n.inputs[0]!.op === "not" ? n.inputs[0]!.inputs[0] : undefined),
  },
  {
    // log(exp x) = x wherever exp x is finite, and better than the original where it overflows.
    name: "log-exp",
    ops: ["log"],
    apply: (n) => (n.inputs[0]!.op === "exp" ? n.inputs[0]!.inputs[0] : undefined),
  },
  {
    name: "cast-same",
    ops: ["cast"],
    apply: (n) => (n.inputs[0]!.dtype === n.dtype ? n.inputs[0] : undefined),
  },
  {
    // Graphs rebuilt by substitution can hold layout ops that no longer move anything.
    name: "layout-identity",
    ops: ["reshape", "broadcast_to", "transpose", "slice"],
    apply: (n) => (sameShape(n.shape, n.inputs[0]!.shape) && movesNothing(n) ? n.inputs[0] : undefined),
  },
  {
    name: "reshape-reshape",
    ops: ["reshape"],
    apply: (n) => (n.inputs[0]!.op === "reshape" ? reshape(n.inputs[0]!.inputs[0]!, n.shape) : undefined),
  },
  {
    // Output axis i of the outer transpose is axis q[i] of the inner one, which is axis p[q[i]] of x.
    name: "transpose-transpose",
    ops: ["transpose"],
    apply: (n) => {
      const inner = n.inputs[0]!;
      if (inner.op !== "transpose") return undefined;
      const p = inner.attrs.perm!, q = n.attrs.perm!;
      return transpose(inner.inputs[0]!, q.map((a) => p[a]!));
    },
  },
  {
    // Size-1 axes hold no data, so a transpose that keeps the other axes in order moves nothing.
    name: "transpose-unit-axes",
    ops: ["transpose"],
    apply: (n) => {
      const x = n.inputs[0]!;
      const order = n.attrs.perm!.filter((p) => x.shape[p] !== 1);
      return order.every((p, i) => i === 0 || p > order[i - 1]!) ? reshape(x, n.shape) : undefined;
    },
  },
  {
    // reshape(transpose(reshape y)) where both reshapes only add or drop size-1 axes is a transpose
    // of y: the pattern vmap leaves around a matrix product that serves every chain.
    name: "unit-reshape-transpose",
    ops: ["reshape"],
    apply: (n) => {
      const t = n.inputs[0]!;
      const r = t.inputs[0];
      if (t.op !== "transpose" || r?.op !== "reshape") return undefined;
      const y = r.inputs[0]!;
      if (!sameShape(nonUnit(y.shape), nonUnit(r.shape)) || !sameShape(nonUnit(t.shape), nonUnit(n.shape))) return undefined;
      const yAxes = y.shape.flatMap((d, i) => (d === 1 ? [] : [i]));
      const rAxes = r.shape.flatMap((d, i) => (d === 1 ? [] : [i]));
      const moved = t.attrs.perm!.filter((p) => r.shape[p] !== 1).map((p) => yAxes[rAxes.indexOf(p)]!);
      const perm = [...moved, ...y.shape.flatMap((d, i) => (d === 1 ? [i] : []))];
      return reshape(transpose(y, perm), n.shape);
    },
  },
  {
    name: "broadcast-broadcast",
    ops: ["broadcast_to"],
    apply: (n) => (n.inputs[0]!.op === "broadcast_to" ? broadcastTo(n.inputs[0]!.inputs[0]!, n.shape) : undefined),
  },
  {
    // Covers a broadcast of a scalar constant: the result is a fill of the new shape, whatever its size.
    name: "layout-of-fill",
    ops: ["reshape", "broadcast_to", "transpose", "slice"],
    apply: (n) => {
      const v = fillValue(n.inputs[0]!);
      return v === undefined ? undefined : constant(v, n.shape, n.dtype);
    },
  },
  {
    // Reducing axes of size 1 leaves every value alone (for logsumexp too: log(exp(x - x)) + x = x).
    name: "reduce-unit-axes",
    ops: REDUCE_OPS,
    apply: (n) => {
      const x = n.inputs[0]!;
      return n.attrs.axes!.every((a) => x.shape[a] === 1) ? reshape(x, n.shape) : undefined;
    },
  },
  {
    name: "select-const-cond",
    ops: ["select"],
    apply: (n) => {
      const c = fillValue(n.inputs[0]!);
      if (c === undefined) return undefined;
      return broadcastTo(c ? n.inputs[1]! : n.inputs[2]!, n.shape);
    },
  },
  {
    // log(c ? x : 1) = c ? log x : 0, log 1 being 0 exactly: the guarded log that the gradient of
    // x^a takes (x^a·log x where x > 0) becomes the log x that the forward pass already has
    // (nodes are interned), one transcendental less per element of a Weibull or gamma likelihood.
    name: "log-of-select-one",
    ops: ["log"],
    apply: (n) => {
      const s = n.inputs[0]!;
      if (s.op !== "select" || s.dtype !== n.dtype) return undefined;
      const [c, a, b] = s.inputs as [Node, Node, Node];
      const zero = constant(0, [], n.dtype);
      if (isFillOf(b, 1)) return select(c, log(a), zero);
      if (isFillOf(a, 1)) return select(c, zero, log(b));
      return undefined;
    },
  },
  {
    name: "select-same-branches",
    ops: ["select"],
    apply: (n) => (n.inputs[1] === n.inputs[2] ? broadcastTo(n.inputs[1]!, n.shape) : undefined),
  },
];

// x op e → x (and e op x → x when `side` is "both"), where e is the identity element; x is broadcast if e widened it.
function binaryIdentity(n: Node, e: number, side: "right" | "both"): Node | undefined {
  const [a, b] = n.inputs as [Node, Node];
  if (isFillOf(b, e)) return broadcastTo(a, n.shape);
  if (side === "both" && isFillOf(a, e)) return broadcastTo(b, n.shape);
  return undefined;
}

function nonUnit(shape: readonly number[]): number[] {
  return shape.filter((d) => d !== 1);
}

function movesNothing(n: Node): boolean {
  switch (n.op) {
    case "transpose": return n.attrs.perm!.every((p, i) => p === i);
    case "slice": return n.attrs.starts!.every((s) => s === 0) && n.attrs.steps!.every((s) => s === 1);
    default: return true;
  }
}
