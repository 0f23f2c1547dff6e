import { describe, expect, it } from "vitest";
import { add, div, exp, interpret, log, matmul, mul, param, scan, sub, sum, data, type Node } from "@ppl/tensor";
import { schedule } from "../src/codegen/schedule.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram } from "../src/codegen/program.ts";
import { vulkanBackend } from "../src/backend.ts";
import { usableDevices } from "../src/devices.ts";

// Which nodes get a kernel of their own. A value shared by its consumers (a per-chain scalar
// broadcast over the data) is stored once, unless recomputing it inline in every consumer costs
// less than the kernel would: on a GPU a kernel is a dispatch and a barrier, 2–3 µs.
const device = usableDevices()[0];
const N = 100_000;
const logSigma = param("log_sigma", [4, 1]);
const y = data("y", [N]);
const sigma = exp(logSigma); // [4, 1], read at 4·N positions
const z = div(sub(y, 1.5), sigma); // [4, N]
const lp = sum(mul(z, z), [1]);
const kernelsOf = (outs: Node[], budget: number) => schedule(outs, { recomputeBudget: budget }).kernels;

describe("schedule: recomputation against kernels", () => {
  it("stores a broadcast exp(log σ) without a budget, and inlines it when its reads fit the budget", () => {
    expect(kernelsOf([lp], 0)).toContain(sigma);
    // exp costs 6 an element; the division reads it at 4·N positions.
    expect(kernelsOf([lp], 6 * 4 * N)).not.toContain(sigma);
    expect(kernelsOf([lp], 6 * 4 * N - 1)).toContain(sigma);
  });

  it("never recomputes what a matmul reads (each element is read once per output column)", () => {
    const w = exp(param("w", [64, 8]));
    const out = matmul(data("X", [N, 64]), w);
    expect(kernelsOf([out], 2 ** 40)).toContain(w);
  });

  it("gives the multi-kernel program the device's budget: one dispatch level fewer on an H200", () => {
    const levels = (budget: number) => planProgram([lp], { ...REFERENCE_LIMITS.h200, recomputeBudget: budget }, () => "").kernels.length;
    expect(levels(REFERENCE_LIMITS.h200.recomputeBudget)).toBe(levels(0) - 1);
  });

  it("stores what a scan's body reads at every step, computed once before the recurrence", () => {
    // An HMM's log transition matrix from its simplex parameters: inlined, its exps and logs ran
    // at every one of the scan's steps (hmm_example on lavapipe: 740 → 5,800 gradients/s stored).
    const logA = log(exp(param("a", [2])));
    const cheap = mul(param("b", [2]), 2);
    const { carry } = scan(([c]) => ({ carry: [add(mul(c!, logA), cheap)] }), [param("c0", [2])], [], [], { length: 50 });
    const s = schedule([sum(carry[0]!)]);
    expect(s.kernels.map((k) => k.op)).toEqual(["log", "scan", "reduce_sum"]);
    expect(s.isStored(logA)).toBe(true);
    // A const as cheap as its own read stays inline.
    expect(s.isStored(cheap)).toBe(false);
  });

  it("stores the nodes it is told to materialize, and their consumers read them instead of their inputs", () => {
    // z is inlined into lp by default (one user, not broadcast); told to, it gets a kernel before lp's.
    expect(kernelsOf([lp], 0)).not.toContain(z);
    const told = schedule([lp], { materialize: new Set([z]) });
    expect(told.kernels).toEqual([sigma, z, lp]);
    expect(told.isStored(z)).toBe(true);
  });

  it.runIf(device !== undefined)("computes the same values inlined as stored", async () => {
    const outs = [lp, add(sum(sigma), 0)];
    const bindings = { log_sigma: Float64Array.from([0.1, -0.3, 0.7, 1.2]), y: Float64Array.from({ length: N }, (_, i) => Math.sin(i)) };
    const want = interpret(outs, bindings);
    for (const recomputeBudget of [0, 2 ** 24]) {
      const backend = await vulkanBackend({ limits: { recomputeBudget } });
      const exe = await backend.compile(outs);
      const got = await exe.run(bindings);
      exe.dispose?.();
      got.forEach((o, i) => o.data.forEach((v, j) => expect(Math.abs(v - want[i]!.data[j]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!.data[j]!)))));
    }
  });
});
