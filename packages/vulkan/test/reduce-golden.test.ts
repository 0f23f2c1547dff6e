// Golden kernels of every reduction strategy (codegen/reduce/): one thread per output, one pass of a
// workgroup per output (subgroup merge, and the shared-memory tree without subgroups), and two
// passes (partial states, then their merge) for a sum and for logsumexp's paired state. A change to
// a renderer or to the strategy choice shows in review as a change of these files.
import { describe, expect, it } from "vitest";
import { data, exp, logsumexp, max, mul, sum, type Node } from "@ppl/tensor";
import type { RenderLimits } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { reducePartitions } from "../src/codegen/reduce/strategy.ts";

const H200 = REFERENCE_LIMITS.h200;
const NO_SUBGROUPS: RenderLimits = { ...H200, subgroupArithmetic: false };
// The math prelude (shared by every kernel, golden-tested with the shaders) stands as one line here.
const prelude = (dtypes: ReadonlySet<string>) => `// (math prelude: ${[...dtypes].join(", ")})`;
const source = (outs: Node[], limits: RenderLimits) => planProgram(outs, limits, prelude).kernels.map((k) => k.source).join("\n// ----\n");
const golden = (name: string) => `./__snapshots__/reduce-${name}.glsl`;

describe("golden reduction kernels", () => {
  const small = data("small", [64, 8], "f32");
  const rows = data("rows", [1024, 1000], "f32");
  const long = data("long", [100000], "f32");

  it("one thread per output: a short reduced extent", async () => {
    expect(reducePartitions(64, 8, H200)).toBe(0);
    await expect(source([sum(mul(small, small), [1])], H200)).toMatchFileSnapshot(golden("serial-sum"));
  });

  it("one pass, a workgroup per output, merged through subgroups", async () => {
    expect(reducePartitions(1024, 1000, H200)).toBe(1);
    await expect(source([sum(exp(rows), [1])], H200)).toMatchFileSnapshot(golden("workgroup-sum-subgroups"));
  });

  it("one pass, a workgroup per output, merged by a shared-memory tree (no subgroup arithmetic)", async () => {
    await expect(source([max(rows, [1])], NO_SUBGROUPS)).toMatchFileSnapshot(golden("workgroup-max-shared-tree"));
  });

  it("split over workgroups in one dispatch: partial sums of slices, merged by the last workgroup to finish", async () => {
    expect(reducePartitions(1, 100000, H200)).toBeGreaterThan(1);
    await expect(source([sum(mul(long, long))], H200)).toMatchFileSnapshot(golden("split-sum"));
  });

  it("split logsumexp's paired state (running max, sum of exponentials)", async () => {
    await expect(source([logsumexp(long)], H200)).toMatchFileSnapshot(golden("split-logsumexp"));
  });
});
