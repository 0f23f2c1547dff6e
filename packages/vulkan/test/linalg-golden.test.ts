// Golden kernels of the general linear algebra (codegen/linalg-units.ts): a batched solve (a unit
// per right-hand column), the log-determinant (a unit per matrix) and the Jacobi eigendecomposition.
// A change to these renderers, or to how their inputs are scheduled, shows in review as a change of these files.
import { describe, expect, it } from "vitest";
import { data, eighSymmetric, signLogDeterminant, solve, type Node } from "@ppl/tensor";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";

// The math prelude stands as one line here, as in the other golden kernels.
const prelude = (dtypes: ReadonlySet<string>) => `// (math prelude: ${[...dtypes].join(", ")})`;
const source = (outs: Node[]) => planProgram(outs, REFERENCE_LIMITS.h200, prelude).kernels.map((k) => k.source).join("\n// ----\n");
const golden = (name: string) => `./__snapshots__/linalg-${name}.glsl`;

describe("golden linear algebra kernels", () => {
  it("solve: a batch of 3×3 matrices against a shared right-hand side, f64", async () => {
    await expect(source([solve(data("A", [2, 3, 3]), data("B", [3, 2]))])).toMatchFileSnapshot(golden("solve-f64"));
  });

  it("sign and log|det| of a 4×4 matrix, f32", async () => {
    const { sign, logAbs } = signLogDeterminant(data("A", [4, 4], "f32"));
    await expect(source([sign, logAbs])).toMatchFileSnapshot(golden("slogdet-f32"));
  });

  it("eigenvalues and eigenvectors of a 3×3 symmetric matrix, f32", async () => {
    const { values, vectors } = eighSymmetric(data("S", [3, 3], "f32"));
    await expect(source([values, vectors])).toMatchFileSnapshot(golden("eigh-f32"));
  });
});
