// The constraints of issue 13, item 3 on the Vulkan backend (lavapipe in CI): each transform's
// constrained value, its log-Jacobian and the gradient of both in the unconstrained values (and in
// the offset and multiplier where they are leaves), compiled to compute shaders with no node on the
// host, against the reference interpreter, in f64 and in f32.
import { describe, it } from "vitest";
import { add, constant, exp, grad, mul, param, sum, type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/internals";
import { usableDevices, vulkanBackend } from "@ppl/vulkan";
import { expectReferenceValues } from "./reference-check.ts";
import * as P from "@ppl/ppl";

const device = usableDevices()[0];

interface Case {
  constraint: P.Constraint;
  shape: number[];
  /** Leaves besides u (node-valued offset and multiplier) and their values. */
  extra?: { leaves: Node[]; bindings: Record<string, number[]> };
}

const mu = param("mu", [3]);
const logTau = param("logTau");
const cases: [string, Case][] = [
  ["covMatrix 3×3", { constraint: P.covMatrix(), shape: [3, 3] }],
  ["choleskyFactorCov 4×2", { constraint: P.choleskyFactorCov(), shape: [4, 2] }],
  ["corrMatrix 4×4", { constraint: P.corrMatrix(), shape: [4, 4] }],
  ["sumToZero of length 5", { constraint: P.sumToZero(), shape: [5] }],
  ["rowStochastic 2×3", { constraint: P.rowStochastic(), shape: [2, 3] }],
  ["columnStochastic 3×2", { constraint: P.columnStochastic(), shape: [3, 2] }],
  ["offsetMultiplier(mu, exp(logTau))", {
    constraint: P.offsetMultiplier(mu, exp(logTau)),
    shape: [3],
    extra: { leaves: [mu, logTau], bindings: { mu: [-1, 0.5, 3], logTau: [0.7] } },
  }],
];

describe.runIf(device !== undefined)("constraints on the Vulkan backend", async () => {
  const backend = await vulkanBackend();
  const dtypes = device?.features.shaderFloat64 ? (["f64", "f32"] as const) : (["f32"] as const);
  const tolerance = { f64: 1e-9, f32: 1e-4 };
  for (const dtype of dtypes) {
    describe(dtype, () => {
      for (const [name, c] of cases) {
        it(`${name}: constrained value, log-Jacobian and their gradient match the reference interpreter`, async () => {
          const t = c.constraint.bind(c.shape);
          const u = param("u", [t.unconstrainedSize]);
          const x = t.forward(u);
          const logJ = t.logJacobian(u);
          // A weighted sum of the constrained value reaches every entry's gradient.
          const weights = constant(Array.from({ length: sizeOf(c.shape) }, (_, i) => Math.cos(1 + 0.7 * i)), c.shape);
          const wrt = [u, ...(c.extra?.leaves ?? [])];
          const outputs = [x, logJ, ...grad(add(sum(mul(weights, x)), logJ), wrt)];
          const bindings = { ...(c.extra?.bindings ?? {}), u: Array.from({ length: t.unconstrainedSize }, (_, i) => 1.3 * Math.sin(2.1 * i + 0.4)) };
          await expectReferenceValues(backend, outputs, bindings, dtype, tolerance[dtype]);
        });
      }
    });
  }
});
