// A program's last kernel as functions another shader calls (codegen/epilogue.ts): the NUTS
// controller computes the batched gradient's assembly this way. Here a shader of its own calls the
// functions for every element, after the program's other kernels ran, and must give the outputs
// the whole program gives; where the last kernel does more than that, there is no epilogue.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, data, gather, grad, interpret, matmul, mul, param, softplus, square, sub, sum, vmap, type DType, type Node } from "@ppl/tensor";
import { optimize } from "@ppl/tensor/internals";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf } from "../src/codegen/limits.ts";
import { planProgram, type ProgramPlan } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { bufferType } from "../src/codegen/glsl.ts";
import { BYTES, residentProgram, toBytes } from "../src/resident-program.ts";
import { VulkanManager } from "../src/manager.ts";
import { compile, lavapipe } from "./helpers.ts";

const device = lavapipe();
const manager = new VulkanManager(device.index);
const limits = limitsOf(device);

/** lp and its gradient of a logistic regression over X [N, K] (or, `hier`, of group effects gathered by an index), vmapped over C chains. */
function gradientGraph(kind: "regression" | "hier", N: number, K: number, C: number, dtype: DType) {
  const y = data("y", [N], dtype);
  if (kind === "regression") {
    const X = data("X", [N, K], dtype), beta = param("beta", [K], dtype);
    const eta = matmul(X, beta);
    const lp = add(sum(sub(mul(y, eta), softplus(eta))), sum(mul(-0.5, square(beta))));
    return optimize(vmap(optimize([lp, ...grad(lp, [beta])]), { params: ["beta"], size: C }));
  }
  const a = param("beta", [K], dtype), g = data("g", [N], "i32");
  const lp = add(sum(mul(-0.5, square(sub(y, gather(a, g))))), sum(mul(-0.5, square(a))));
  return optimize(vmap(optimize([lp, ...grad(lp, [a])]), { params: ["beta"], size: C }));
}

function bindingsOf(kind: "regression" | "hier", N: number, K: number, C: number) {
  const wave = (n: number, s: number) => Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.7 + s) * 0.9);
  return {
    y: kind === "regression" ? Float64Array.from(wave(N, 1), (v) => (v > 0 ? 1 : 0)) : wave(N, 1),
    X: wave(N * K, 2),
    g: Float64Array.from({ length: N }, (_, i) => (i * 7) % K),
    beta: wave(C * K, 3),
  };
}

/**
 * The outputs of the whole program, and of its kernels but the last followed by a shader that
 * calls the epilogue's functions: a workgroup per chain, which prepares its chain's sums (across
 * its subgroups' lanes with `perSubgroup`) and then computes its elements of every output.
 */
async function bothWays(plan: ProgramPlan, values: Record<string, Float64Array>, dtype: DType, chains: number, perSubgroup: boolean): Promise<[Float64Array[], Float64Array[], string]> {
  const program = await residentProgram(manager, plan);
  for (const n of plan.buffers) if (n.op === "data" || n.op === "param") program.buffers.get(n)!.write(toBytes(n.dtype, values[n.attrs.name!]!));
  const read = (n: Node) => {
    const bytes = program.buffers.get(n)!.read(n.size * BYTES[n.dtype]);
    return dtype === "f64" ? new Float64Array(bytes) : Float64Array.from(new Float32Array(bytes));
  };
  const run = (dispatches: typeof program.dispatches) => {
    const s = manager.sequence();
    dispatches.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
    s.submitSync();
    s.destroy();
  };
  run(program.dispatches);
  const whole = plan.outputs.map(read);
  for (const o of plan.outputs) program.buffers.get(o)!.write(toBytes(o.dtype, new Float64Array(o.size)));
  run(program.dispatches.slice(0, -1));
  const e = plan.epilogue(0, () => undefined, chains)!;
  const outBase = e.bindings.length;
  const source = [
    "#version 450",
    "#extension GL_KHR_shader_subgroup_basic : require",
    "#extension GL_KHR_shader_subgroup_arithmetic : require",
    "layout(local_size_x = 64) in;",
    kernelPrelude(new Set<DType>([dtype, "i32"])),
    ...(perSubgroup ? ["#define PPL_CHAIN_PER_SUBGROUP"] : []),
    e.source,
    ...plan.outputs.map((o, j) => `layout(std430, set = 0, binding = ${outBase + j}) writeonly buffer Out${j} { ${bufferType(o.dtype)} v[]; } bout${j};`),
    "void main() {",
    "  int c = int(gl_WorkGroupID.x);",
    "  ppl_prepare(c);",
    ...plan.outputs.map((o, j) => {
      const per = o.size / chains;
      return `  for (int u = c * ${per} + int(gl_LocalInvocationID.x); u < (c + 1) * ${per}; u += 64) bout${j}.v[u] = ppl_out${j}(u);`;
    }),
    "}",
  ].join("\n");
  const outs = plan.outputs.map((o) => manager.buffer(o.size * BYTES[o.dtype]));
  const algorithm = manager.algorithm(await compile(source, { optimize: false }), { buffers: outBase + outs.length });
  const s = manager.sequence();
  s.dispatch(algorithm, [...e.bindings.map((b) => program.buffers.get(b)!), ...outs], chains);
  s.submitSync();
  const viaEpilogue = plan.outputs.map((o, j) => {
    const bytes = outs[j]!.read(o.size * BYTES[o.dtype]);
    return dtype === "f64" ? new Float64Array(bytes) : Float64Array.from(new Float32Array(bytes));
  });
  s.destroy();
  algorithm.destroy();
  outs.forEach((b) => b.destroy());
  program.destroy();
  return [whole, viaEpilogue, e.source];
}

describe("a program's last kernel as functions (epilogue.ts)", () => {
  // Plans as a GPU splits their sums (several workgroups a sum, their partials added by the
  // readers: the epilogue's prepare adds them a chain), and as lavapipe's own limits plan them.
  const split = { ...limits, parallelReduceMin: 16, busyGroups: 64, groupSize: 16 };
  it.each([
    ["f32", "lavapipe's limits", limits, false],
    ["f64", "lavapipe's limits", limits, false],
    ["f32", "sums split, prepared by each thread", split, false],
    ["f64", "sums split, prepared across subgroups", split, true],
  ] as const)("random regressions and hierarchical gradients: the functions give the last kernel's outputs, %s, %s", async (dtype, _what, planLimits, perSubgroup) => {
    let checked = 0, prepared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<"regression" | "hier">("regression", "hier"), fc.integer({ min: 2, max: 300 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 9 }),
        async (kind, N, K, C) => {
          const outs = gradientGraph(kind, N, K, C, dtype);
          const plan = planProgram(outs, planLimits, kernelPrelude, { merge: true });
          // Most plans of these gradients end in a kernel that only assembles the outputs (a tiny
          // one may compute a sum there too).
          if (!plan.epilogue(0, () => undefined, C)) return;
          checked++;
          const values = bindingsOf(kind, N, K, C);
          const [whole, viaEpilogue, source] = await bothWays(plan, values, dtype, C, perSubgroup);
          if (source.includes("ppl_prepared0")) prepared++;
          const want = interpret(plan.outputs, values);
          whole.forEach((w, j) => {
            // The same expressions over the same stored values (partials added in another order
            // where prepared): equal up to rounding.
            const tol = dtype === "f32" ? 1e-5 : 1e-12;
            viaEpilogue[j]!.forEach((v, i) => expect(Math.abs(v - w[i]!)).toBeLessThanOrEqual(tol * (1 + Math.abs(w[i]!))));
            expect(w.length).toBe(want[j]!.data.length);
          });
        },
      ),
      { numRuns: 10, seed: 5 },
    );
    expect(checked).toBeGreaterThanOrEqual(6);
    if (planLimits === split) expect(prepared).toBeGreaterThanOrEqual(4);
  });

  it("reads a stored node through the including shader's array where it names one, with no binding of its own", () => {
    const outs = gradientGraph("regression", 1000, 10, 1024, "f32");
    const plan = planProgram(outs, REFERENCE_LIMITS.h200, kernelPrelude, { merge: true });
    const e = plan.epilogue(15, (n) => (n.op === "param" ? "bq.v" : undefined))!;
    expect(e.source).toContain("bq.v[");
    expect(e.bindings.some((b) => "op" in b && b.op === "param")).toBe(false);
    expect(e.source).toMatch(/binding = 15\)/);
    expect(e.source).toMatch(/float ppl_out0\(int u\)[\s\S]*float ppl_out1\(int u\)/);
  });

  it("is undefined where the last kernel does more than assemble the outputs", () => {
    const x = param("x", [300], "f32");
    // The last kernel is the sum itself, not an elementwise function of stored values.
    const plan = planProgram([sum(mul(x, x))], limits, kernelPrelude, { merge: true });
    expect(plan.epilogue(0, () => undefined)).toBeUndefined();
  });
});
