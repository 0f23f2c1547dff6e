import { describe, expect, it } from "vitest";
import {
  add, constant, data, eigenvaluesSym, eigenvectorsSym, grad, identity, interpret, logDeterminant, matmul, mT, mul, param, scan, solve, sum,
  type Node,
} from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { linalgLoopIterations } from "../src/codegen/linalg-units.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { usableDevices } from "../src/devices.ts";

// General solve, log-determinant and symmetric eigendecomposition at posterior sizes on the device
// (lavapipe in CI), against the reference interpreter; and the plan-time refusal of orders whose
// loops a driver would cut short. The op conformance suite covers small random batches.
const device = usableDevices()[0];

/** Deterministic values in [−1, 1), exact in f32. */
function reals(count: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 2 - 1);
  });
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

describe("loop budget", () => {
  const lavapipe = REFERENCE_LIMITS.lavapipe;
  it("refuses an eigendecomposition too long for llvmpipe's loop cap, naming the way out", () => {
    const big = eigenvaluesSym(param("a", [24, 24]));
    expect(() => planProgram([big], lavapipe, () => "")).toThrow(/eigh of order 24 may run \d+ loop iterations .*llvmpipe.*: run it on a GPU or on the CPU backend/);
    expect(() => planProgram([big], REFERENCE_LIMITS.h200, () => "")).not.toThrow();
  });

  it("lets posterior-sized solves and moderate eigendecompositions through", () => {
    const A = param("a", [40, 40]);
    expect(linalgLoopIterations(solve(A, param("b", [40, 1])))).toBeLessThan(lavapipe.maxLoopIterations);
    expect(() => planProgram([logDeterminant(A), eigenvaluesSym(param("s", [12, 12]))], lavapipe, () => "")).not.toThrow();
  });
});

describe.runIf(device !== undefined)("on the device", async () => {
  const backend = await vulkanBackend();
  const dtypes = device?.features.shaderFloat64 ? (["f32", "f64"] as const) : (["f32"] as const);

  it("binds an array constant inside a scan body (a matrix in a recurrence) as a buffer of the program", async () => {
    const x0 = param("x0", [3]);
    const M = constant([0.5, 0.1, 0, -0.2, 0.9, 0.3, 0, 0.4, 0.7], [3, 3]);
    const res = scan(([x]) => ({ carry: [solve(add(M, identity(3)), matmul(M, x!))] }), [x0], [], [], { length: 4 });
    const outs = [res.carry[0]!];
    const bindings = { x0: [1, -2, 0.5] };
    const want = interpret(outs, bindings);
    const got = await (await backend.compile(outs)).run(bindings);
    expect(maxDiff(got[0]!.data, want[0]!.data)).toBeLessThan(1e-6);
  });

  for (const dtype of dtypes) {
    it(`solve, log|det| and their gradients at n = 40 (${dtype}) equal the CPU's`, async () => {
      const n = 40;
      const M = data("M", [n, n], dtype), b = data("b", [n], dtype), x = param("x", [n], dtype);
      // A well-conditioned general matrix: M/4 plus a shifted diagonal; x enters both the matrix and the right-hand side.
      const A = add(mul(M, 0.25), add(mul(identity(n, dtype), 3), mul(mT(mul(constant(reals(n * n, 9), [n, n], dtype), 0.1)), sum(x))));
      const lp = add(sum(mul(solve(A, add(b, x)), b)), logDeterminant(A));
      const [g] = grad(lp, [x]);
      const outs: Node[] = [lp, g!];
      const bindings = { M: reals(n * n, 3), b: reals(n, 4), x: reals(n, 5).map((v) => v * 0.1) };
      const want = interpret(outs, bindings);
      const got = await (await backend.compile(outs)).run(bindings);
      const tol = dtype === "f32" ? 2e-3 : 1e-10;
      expect(Math.abs(got[0]!.data[0]! - want[0]!.data[0]!)).toBeLessThan(tol * Math.max(1, Math.abs(want[0]!.data[0]!)));
      expect(maxDiff(got[1]!.data, want[1]!.data)).toBeLessThan(tol * Math.max(1, ...Array.from(want[1]!.data, Math.abs)));
    });

    it(`eigenvalues and eigenvectors of a 12×12 symmetric matrix (${dtype}) equal the CPU's`, async () => {
      const n = 12;
      const S = data("S", [n, n], dtype);
      const A = add(add(S, mT(S)), mul(identity(n, dtype), constant(Array.from({ length: n }, (_, k) => 3 * k), [n], dtype)));
      const outs = [eigenvaluesSym(A), eigenvectorsSym(A), matmul(mT(eigenvectorsSym(A)), eigenvectorsSym(A))];
      const bindings = { S: reals(n * n, 7) };
      const want = interpret(outs, bindings);
      const got = await (await backend.compile(outs)).run(bindings);
      const tol = dtype === "f32" ? 1e-4 : 1e-11;
      expect(maxDiff(got[0]!.data, want[0]!.data)).toBeLessThan(tol * 40);
      expect(maxDiff(got[1]!.data, want[1]!.data)).toBeLessThan(tol * 10);
      expect(maxDiff(got[2]!.data, want[2]!.data)).toBeLessThan(tol);
    });
  }
});
