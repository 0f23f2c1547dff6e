import { describe, expect, it } from "vitest";
import { add, data, exp, gather, grad, interpret, mul, param, reshape, slice, square, sub, sum, vmap, type Node } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram, type KernelPlan } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";
import { lcg, reals, tensorValueOf } from "./helpers.ts";

// A hierarchical regression's gradient on the GPU: group effects a = mu + gamma·u + exp(s)·a_raw
// gathered by a group index g, y ~ normal(a[g] + b·x, 1). The gradient of a_raw is a scatter of
// the row terms into the groups; those of mu, gamma and s are sums over the groups of that scatter
// times 1, u and a_raw, which the planner writes over the rows (sum-scatters-over-rows.ts) so
// that they do not wait for the scatter; inside the scatter's segment of group j, a[g[p]] is a[j],
// read once a segment.
const device = usableDevices()[0];
// One iteration a loop trip, so that a loop body is one iteration's code (strided-loop.test.ts covers several).
const GPU = { ...REFERENCE_LIMITS.h200, subgroupArithmetic: false, loopIterationsInFlight: 1 };

const value = tensorValueOf;

function hierarchical(J: number, N: number, C: number, dtype: "f32" | "f64") {
  const theta = param("theta", [J + 4], dtype);
  const u = data("u", [J], dtype);
  const g = data("g", [N], "i32");
  const x = data("x", [N], dtype);
  const y = data("y", [N], dtype);
  const pick = (k: number) => reshape(slice(theta, [{ start: k, stop: k + 1 }]), []);
  const aRaw = slice(theta, [{ start: 4 }]);
  const a = add(add(pick(0), mul(pick(1), u)), mul(exp(pick(2)), aRaw));
  const r = sub(y, add(gather(a, g, 0), mul(pick(3), x)));
  const lp = add(sum(mul(-0.5, square(r))), sum(mul(-0.5, square(aRaw))));
  const [dtheta] = grad(lp, [theta]);
  return vmap([lp, dtheta!], new Map([[theta, C]]));
}

/** The GLSL of the loop over a segment's entries in a scatter kernel. */
function segmentLoop(k: KernelPlan): string {
  const start = k.source.search(/for \(int s\w* = lo/);
  expect(start).toBeGreaterThan(0);
  let depth = 0;
  for (let i = k.source.indexOf("{", start); i < k.source.length; i++) {
    if (k.source[i] === "{") depth++;
    else if (k.source[i] === "}" && --depth === 0) return k.source.slice(start, i + 1);
  }
  throw new Error("unbalanced loop");
}

describe("a hierarchical regression's gradient: planning", () => {
  const outs = hierarchical(2000, 100_000, 4, "f32");
  const plan = (recomputeBudget: number) => planProgram(outs, { ...GPU, recomputeBudget }, () => "// (prelude)");
  const scatterOf = (p: ReturnType<typeof plan>) => p.kernels.find((k) => k.node.op === "scatter_add")!;

  it("sums over the groups read the rows, not the scatter: no kernel waits for the scatter but the gradient's assembly", () => {
    for (const budget of [GPU.recomputeBudget, 2 ** 26]) {
      const p = plan(budget);
      const scatter = scatterOf(p);
      const readers = p.kernels.filter((k) => k !== scatter && k.bindings.includes(scatter.node));
      expect(readers.length).toBeGreaterThan(0);
      expect(readers.map((k) => k.node.op)).not.toContain("reduce_sum");
    }
  });

  it("reads a group's effect once a segment: the loop over the entries loads no index and gathers nothing", () => {
    // With the row terms recomputed inside the scatter (a budget that keeps them inline), the
    // updates gather a[g[p]] by the scatter's own index: a[j] for the whole segment.
    const scatter = scatterOf(plan(2 ** 26));
    const loop = segmentLoop(scatter);
    expect(loop).not.toContain("clamp(");
    expect(loop).toMatch(/int p = b\d+\.v\[s\];/);
    expect(scatter.source.slice(0, scatter.source.indexOf(loop))).toContain("clamp((u)%2000, 0, 1999)");
  });

  it("indices the data hold sorted (sortedIndex): the segment's entries are its positions, no order buffer read", () => {
    const asked: number[] = [];
    const sorted = planProgram(outs, { ...GPU, recomputeBudget: 2 ** 26 }, () => "// (prelude)", {
      sortedIndex: (ind, targets) => (asked.push(targets), ind.inputs.length === 0 || ind.op === "data" || ind.op === "cast"),
    });
    expect(asked).toContain(2000);
    const scatter = scatterOf(sorted);
    expect(segmentLoop(scatter)).toMatch(/int p = s;/);
    expect(scatter.bindings.some((b) => "kind" in b && b.label.startsWith("segment sort: positions"))).toBe(false);
    expect(scatterOf(plan(2 ** 26)).bindings.some((b) => "kind" in b && b.label.startsWith("segment sort: positions"))).toBe(true);
  });
});

describe.runIf(device !== undefined)("a hierarchical regression's gradient on the device", () => {
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";

  it("equals the reference interpreter with duplicate, empty and unsorted groups, with the row terms stored and recomputed", async () => {
    const J = 40, N = 3000, C = 3;
    const r = lcg(5);
    // Groups 0..38 in random order, group 39 empty, group 7 taking a third of the rows.
    const groups = Array.from({ length: N }, (_, i) => (i % 3 === 0 ? 7 : Math.floor(r() * (J - 1))));
    const b = {
      theta: value(dtype, [C, J + 4], reals(C * (J + 4), 1)), u: value(dtype, [J], reals(J, 2)), g: value("i32", [N], groups),
      x: value(dtype, [N], reals(N, 3)), y: value(dtype, [N], reals(N, 4)),
    };
    const outs = hierarchical(J, N, C, dtype);
    const want = interpret(outs, b);
    // lavapipe's own budget stores the row terms; a GPU's large one recomputes them in every reader.
    for (const backend of [await vulkanBackend(), await vulkanBackend({ limits: { recomputeBudget: 2 ** 30 } })]) {
      const exe = await backend.compile(outs);
      try {
        const got = await exe.run(b);
        const tol = dtype === "f64" ? 1e-10 : 2e-4;
        got.forEach((o, k) => o.data.forEach((v, e) => expect(Math.abs(v - want[k]!.data[e]!)).toBeLessThanOrEqual(tol * (1 + Math.abs(want[k]!.data[e]!)))));
      } finally {
        exe.dispose?.();
      }
    }
  });
});
