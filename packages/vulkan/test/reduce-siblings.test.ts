import { describe, expect, it } from "vitest";
import { add, data, exp, interpret, log, mul, param, reshape, slice, square, sub, sum, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram } from "../src/codegen/program.ts";
import { placeSiblings, type ReduceSiblings } from "../src/codegen/reduce/siblings.ts";
import { usableDevices } from "../src/devices.ts";
import { reals, tensorValueOf } from "./helpers.ts";

// Sums over the same elements in one kernel (reduce/siblings.ts): each thread computes the terms
// of an element once for every sum, and every sum is folded and merged as it would be alone.
const device = usableDevices()[0];
// One iteration a loop trip, so that a loop body is one iteration's code (strided-loop.test.ts covers several).
const GPU = { ...REFERENCE_LIMITS.h200, subgroupArithmetic: false, loopIterationsInFlight: 1 };

const value = tensorValueOf;

/** Four sums over the rows of terms of one residual r = (y − θ0 − θ1·x)·exp(−θ2), for C chains. */
function regressionSums(C: number, N: number, dtype: "f32" | "f64"): Node[] {
  const theta = param("theta", [C, 3], dtype);
  const x = data("x", [N], dtype);
  const y = data("y", [N], dtype);
  const col = (k: number) => reshape(slice(theta, [undefined, { start: k, stop: k + 1 }]), [C, 1]);
  const r = mul(sub(y, add(col(0), mul(col(1), x))), exp(mul(-1, col(2))));
  return [sum(mul(-0.5, square(r)), [1]), sum(r, [1]), sum(mul(r, x), [1]), sum(log(add(1, square(r))), [1])];
}

describe("sums over the same elements: planning", () => {
  it("renders a regression's sums over 100k rows as one kernel that computes each row's residual once", () => {
    const outs = regressionSums(4, 100_000, "f32");
    const p = planProgram(outs, GPU, () => "// (prelude)", { merge: true });
    expect(p.kernels.length).toBe(1);
    const k = p.kernels[0]!;
    expect(k.source).toContain("4 reductions over the same elements in one pass");
    expect(k.nodes).toEqual(outs);
    // One exp(−θ2) for all four sums, before the loop; one read of y and of x an element.
    expect(k.source.match(/ppl_exp\(/g)?.length).toBe(1);
    const start = k.source.indexOf("for (int k =");
    const loop = k.source.slice(start, k.source.indexOf("ppl_sh0[gl_LocalInvocationIndex]", start));
    expect(loop.match(/b\d+\.v\[k\]/g)?.length).toBe(2);
  });

  it("keeps apart sums of which one reads another, and sums over other shapes", () => {
    const t = param("t", [4, 5000], "f32");
    const s1 = sum(t, [1]);
    const s2 = sum(mul(t, reshape(s1, [4, 1])), [1]);
    const s3 = sum(square(t), [0]);
    const p = planProgram([s1, s2, s3], GPU, () => "");
    expect(p.kernels.some((k) => k.source.includes("reductions over the same elements"))).toBe(false);
    expect(p.kernels.filter((k) => k.node.op === "reduce_sum").length).toBe(3);
  });

  it("runs what reads an earlier member of a group after the group", () => {
    const [a, b, c, d] = ["a", "b", "c", "d"].map((n) => param(n, [2]));
    const reads = new Map<Node, ReadonlySet<Node>>([[a!, new Set()], [b!, new Set([a!])], [c!, new Set()], [d!, new Set([b!, c!])]]);
    const group: ReduceSiblings = { kind: "reduce-siblings", members: [a!, c!], partitions: 2 };
    const order = placeSiblings([a!, b!, c!, d!], [group], (n) => [n], (n) => reads.get(n)!);
    expect(order).toEqual([group, b, d]);
  });
});

describe.runIf(device !== undefined)("sums over the same elements on the device", () => {
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";

  it("equals each sum computed alone, bit for bit, and the reference interpreter", async () => {
    const C = 3, N = 20_000;
    const outs = regressionSums(C, N, dtype);
    const b = { theta: value(dtype, [C, 3], reals(C * 3, 1)), x: value(dtype, [N], reals(N, 2)), y: value(dtype, [N], reals(N, 3)) };
    // A GPU's split (several workgroups an output, the last merging) on lavapipe.
    const split = { parallelReduceMin: 64, busyGroups: 64 };
    const planned = planProgram(outs, { ...REFERENCE_LIMITS.lavapipe, ...split }, () => "").kernels;
    expect(planned.map((k) => k.source.match(/\d+ reductions over the same elements in one pass/)?.[0])).toContain("4 reductions over the same elements in one pass");
    expect(planned.some((k) => k.source.includes("the last merges their partials"))).toBe(true);
    const backend = await vulkanBackend({ limits: split });
    const together = await backend.compile(outs);
    try {
      const got = await together.run(b);
      const want = interpret(outs, b);
      for (let i = 0; i < outs.length; i++) {
        const alone = await backend.compile([outs[i]!]);
        try {
          const one = (await alone.run(b))[0]!;
          expect(Array.from(got[i]!.data)).toEqual(Array.from(one.data));
        } finally {
          alone.dispose?.();
        }
        got[i]!.data.forEach((v, e) => expect(Math.abs(v - want[i]!.data[e]!)).toBeLessThanOrEqual((dtype === "f64" ? 1e-9 : 2e-3) * (1 + Math.abs(want[i]!.data[e]!))));
      }
    } finally {
      together.dispose?.();
    }
  });
});
