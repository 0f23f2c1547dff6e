import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as T from "../src/api/elementwise.ts";
import { param } from "../src/api/leaves.ts";
import { sum } from "../src/api/reduce.ts";
import { scan } from "../src/api/scan.ts";
import { interpret } from "../src/cpu/reference/interpret.ts";
import { toposort } from "../src/graph/toposort.ts";
import type { Node } from "../src/ir/node.ts";
import { lowerLogisticFunctions } from "../src/rewrite/lower-logistic.ts";

const ops = (outs: readonly Node[], op: string) => toposort(outs).filter((n) => n.op === op).length;
const allOps = (outs: readonly Node[], op: string): number =>
  toposort(outs).reduce((k, n) => k + (n.op === op ? 1 : 0) + (n.op === "scan" ? allOps(n.attrs.body!.outputs, op) : 0), 0);

// Within a few ulps of the reference kernels (which compute the same functions by their own formulas).
const close = (got: number, want: number) => {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want) || want === 0) return Object.is(got, want) || Math.abs(got - want) <= 1e-300;
  return Math.abs(got - want) <= 4 * Number.EPSILON * Math.abs(want);
};

describe("lowerLogisticFunctions", () => {
  const t = param("t", [6]);

  it("gives a Bernoulli-logit term's log_sigmoid(t) and its derivative sigmoid(−t) one exp(−|t|)", () => {
    const outs = [sum(T.logSigmoid(t)), T.sigmoid(T.neg(t)), T.softplus(t)];
    const lowered = lowerLogisticFunctions(outs);
    expect(["sigmoid", "softplus", "log_sigmoid"].map((op) => ops(lowered, op))).toEqual([0, 0, 0]);
    expect(ops(lowered, "exp")).toBe(1);
    expect(ops(lowered, "log1p")).toBe(1);
    // The sigmoid divides once: the select picks its numerator, not one of two quotients.
    expect(ops(lowered, "div")).toBe(1);
  });

  it("lowers inside scan bodies too", () => {
    const { carry } = scan(([c], [x]) => ({ carry: [T.add(c!, T.add(T.logSigmoid(x!), T.sigmoid(T.neg(x!))))] }), [param("c0", [])], [param("xs", [5])]);
    const lowered = lowerLogisticFunctions(carry);
    expect(allOps(lowered, "log_sigmoid") + allOps(lowered, "sigmoid")).toBe(0);
    expect(allOps(lowered, "exp")).toBe(1);
  });

  it("computes the functions' values, over the whole line, ±0, ±∞ and NaN", () => {
    const special = [0, -0, Infinity, -Infinity, NaN, 1e-300, -1e-300, 745, -745, 36.7, -36.7, 710, -710];
    const value = fc.oneof(fc.double({ min: -60, max: 60, noNaN: true }), fc.double({ noNaN: false }), fc.constantFrom(...special));
    fc.assert(
      fc.property(fc.array(value, { minLength: 6, maxLength: 6 }), (xs) => {
        const outs = [T.sigmoid(t), T.softplus(t), T.logSigmoid(t), T.sigmoid(T.neg(t))];
        const env = { t: Float64Array.from(xs) };
        const want = interpret(outs, env);
        const got = interpret(lowerLogisticFunctions(outs), env);
        got.forEach((o, i) => o.data.forEach((x, j) => expect(close(x, want[i]!.data[j]!), `output ${i} at ${xs[j]}: ${x} vs ${want[i]!.data[j]}`).toBe(true)));
      }),
      { seed: 20261202, numRuns: 300 },
    );
  });

  it("leaves a graph without them as it is", () => {
    const outs = [sum(T.exp(t))];
    expect(lowerLogisticFunctions(outs)).toEqual(outs);
  });
});
