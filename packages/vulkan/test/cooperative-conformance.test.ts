// The op conformance suite against the cooperative renderer (codegen/cooperative.ts), which the
// GPU sampler's workgroup-per-chain shape uses for a model's log density and gradient: every case's
// graph is rendered for ONE workgroup, its intermediates in global scratch or in shared memory, its
// reductions merged through a shared-memory tree or within subgroups first, and compared with the
// CPU reference. Small workgroups, so that the small shapes of the cases reach the cooperative
// reductions (terms ≥ workgroup), and a shared capacity of a few outputs per pass, so that
// reductions with more outputs run in several chunks.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { accumulatedTol, checkConformanceCase, conformanceCases, exactTol, floats, instanceArb, type ConformanceCase, type FloatDType } from "@ppl/tensor/testing";
import {
  abs, add, data, grad, matmul, max, mul, param, softplus, square, sub, sum, transpose, tensorValue, type Backend, type Bindings, type DType,
  type Executable, type Node, type TensorValue,
} from "@ppl/tensor";
import { lowerLpdfSums, optimize, reduce } from "@ppl/tensor/internals";
import { VulkanManager, limitsOf } from "../src/index.ts";
import { BYTES, bufferType, convert, flatten, kernelPrelude, renderCooperative, Scope, toBytes, unflatten, type LeafReader } from "../src/internals.ts";
import { compile, lavapipe } from "./helpers.ts";

const RUNS = Number(process.env.PPL_CONFORMANCE_RUNS ?? 2);
const device = lavapipe();
const manager = new VulkanManager(device.index);
const subgroupsOk = limitsOf(device).subgroupArithmetic;

interface Variant {
  readonly workgroup: number;
  readonly onChip: boolean;
  readonly subgroups: boolean;
}

/** A Backend whose every graph is one workgroup of the cooperative renderer. */
function cooperativeBackend(dtype: "f32" | "f64", v: Variant): Backend {
  return {
    name: "cooperative",
    device: device.name,
    async compile(given: readonly Node[]): Promise<Executable> {
      // The GLSL of a fused log density is its expansion (lowered as planProgram lowers it).
      const outputs = lowerLpdfSums(given);
      // Leaves get a buffer each as the renderer reads them: params, data, and array constants,
      // including those it makes itself (a constant index's segment layout).
      const leaves: Node[] = [];
      const read: LeafReader = (n, idx) => {
        if (!(n.op === "param" || n.op === "data" || (n.op === "const" && typeof n.attrs.value !== "number"))) return undefined;
        let b = leaves.indexOf(n);
        if (b < 0) b = leaves.push(n) - 1;
        const e = `bin${b}.v[${flatten(n.shape, idx)}]`;
        return n.dtype === "bool" ? `(${e} != 0)` : e;
      };
      const W = v.workgroup;
      const scope = new Scope(undefined, "  ");
      const program = renderCooperative(outputs, read, scope, {
        at: (offset, flat) => `PPL_SCR(${offset} + ${flat})`,
        dtype,
        workgroup: W,
        lid: "gl_LocalInvocationID.x",
        shared: ["red0", "red1"],
        sharedCapacity: 3 * W,
        subgroups: v.subgroups,
        barrier: v.onChip ? "memoryBarrierShared(); barrier();" : "memoryBarrierBuffer(); memoryBarrierShared(); barrier();",
      });
      const T = dtype === "f64" ? "double" : "float";
      const scratch = Math.max(1, program.scratchSize);
      outputs.forEach((o, j) => {
        const i = `i${j}`;
        const body = scope.child();
        const value = program.r.value(o, unflatten(o.shape, i), body);
        body.emit(`bout${j}.v[${i}] = ${o.dtype === "bool" ? `(${value} ? 1 : 0)` : convert(value, o.dtype, o.dtype)};`);
        scope.block(`for (int ${i} = int(gl_LocalInvocationID.x); ${i} < ${o.size}; ${i} += ${W})`, body);
      });
      const outBase = leaves.length + 1;
      const source = [
        "#version 450",
        ...(v.subgroups ? ["#extension GL_KHR_shader_subgroup_basic : require", "#extension GL_KHR_shader_subgroup_arithmetic : require", "#extension GL_KHR_shader_subgroup_vote : require"] : []),
        `layout(local_size_x = ${W}) in;`,
        kernelPrelude(new Set([dtype])),
        ...leaves.map((n, i) => `layout(std430, set = 0, binding = ${i}) readonly restrict buffer In${i} { ${bufferType(n.dtype)} v[]; } bin${i};`),
        `layout(std430, set = 0, binding = ${leaves.length}) restrict buffer Scratch { ${T} v[]; } bs;`,
        ...outputs.map((o, j) => `layout(std430, set = 0, binding = ${outBase + j}) writeonly restrict buffer Out${j} { ${bufferType(o.dtype)} v[]; } bout${j};`),
        `shared ${T} red0[${3 * W}];`,
        `shared ${T} red1[${3 * W}];`,
        ...(v.onChip ? [`shared ${T} scr[${scratch}];`, "#define PPL_SCR(i) scr[i]"] : ["#define PPL_SCR(i) bs.v[(i)]"]),
        "void main() {",
        ...scope.lines,
        "}",
      ].join("\n");
      const algorithm = manager.algorithm(await compile(source, { optimize: false }), { buffers: outBase + outputs.length });
      const inBuffers = leaves.map((n) => manager.buffer(Math.max(4, n.size * BYTES[n.dtype])));
      leaves.forEach((n, i) => {
        if (n.op === "const") inBuffers[i]!.write(toBytes(n.dtype, n.attrs.value as Float64Array));
      });
      const scratchBuffer = manager.buffer(scratch * BYTES[dtype]);
      const outBuffers = outputs.map((o) => manager.buffer(Math.max(4, o.size * BYTES[o.dtype])));
      const sequence = manager.sequence();
      sequence.dispatch(algorithm, [...inBuffers, scratchBuffer, ...outBuffers], 1);
      return {
        outputs,
        stats: { kernels: 1, hostNodes: 0 },
        async run(inputs: Bindings): Promise<TensorValue[]> {
          leaves.forEach((n, i) => {
            if (n.op === "const") return;
            const value = inputs[n.attrs.name!];
            if (value === undefined) throw new Error(`no binding for ${n.attrs.name}`);
            const values = typeof value === "number" ? [value] : "data" in value ? value.data : value;
            inBuffers[i]!.write(toBytes(n.dtype, values));
          });
          await sequence.submit();
          return outputs.map((o, j) => tensorValue(fromBytes(o.dtype, outBuffers[j]!.read(o.size * BYTES[o.dtype])), o.shape, o.dtype));
        },
        dispose() {
          sequence.destroy();
          algorithm.destroy();
          [...inBuffers, scratchBuffer, ...outBuffers].forEach((b) => b.destroy());
        },
      };
    },
  };
}

function fromBytes(dtype: DType, bytes: ArrayBuffer): Float64Array {
  switch (dtype) {
    case "f64": return new Float64Array(bytes);
    case "f32": return Float64Array.from(new Float32Array(bytes));
    default: return Float64Array.from(new Int32Array(bytes));
  }
}

const variants: [string, "f32" | "f64", Variant][] = [
  ["f32, 8 threads, global scratch, shared-memory trees", "f32", { workgroup: 8, onChip: false, subgroups: false }],
  ...(subgroupsOk ? [["f32, 16 threads, shared scratch, subgroup merges", "f32", { workgroup: 16, onChip: true, subgroups: true }] as [string, "f32", Variant]] : []),
  ...(device.features.shaderFloat64 ? [["f64, 4 threads, shared scratch", "f64", { workgroup: 4, onChip: true, subgroups: subgroupsOk }] as [string, "f64", Variant]] : []),
];

// Reductions the random shapes above seldom make cooperative: terms from the workgroup's size to a
// few times it, and 1 to 11 outputs (so several chunks of the shared capacity of three), for each
// monoid, and the two products of a regression gradient (X·β with few rows is a row sum, Xᵀ·r).
function cooperativeReductionCases(): ConformanceCase[] {
  const dims = fc.tuple(fc.integer({ min: 4, max: 70 }), fc.integer({ min: 1, max: 11 }));
  const reductions: ConformanceCase[] = (["reduce_sum", "reduce_max", "reduce_min", "reduce_logsumexp"] as const).map((op) => ({
    name: `${op} of many terms into few outputs`,
    ops: [op],
    tolerance: op === "reduce_max" || op === "reduce_min" ? exactTol : accumulatedTol,
    arbitrary: (dtype: FloatDType) =>
      dims.chain(([n, m]) =>
        instanceArb(dtype, [{ name: "x", shape: [n, m], values: floats(-4, 4) }], ([x]) => {
          const out = reduce(op, x!, [0]);
          const scale = op === "reduce_sum" ? mul(sum(abs(x!), [0]), n) : op === "reduce_logsumexp" ? mul(max(abs(x!), [0]), 2) : undefined;
          return { outputs: [out], scales: [scale] };
        }),
      ),
  }));
  const products: ConformanceCase = {
    name: "matmul X·β and Xᵀ·r with many terms",
    ops: ["matmul", "transpose"],
    tolerance: accumulatedTol,
    arbitrary: (dtype: FloatDType) =>
      dims.chain(([n, m]) =>
        instanceArb(
          dtype,
          [{ name: "X", shape: [n, m], values: floats(-2, 2) }, { name: "r", shape: [n, 1], values: floats(-2, 2), leaf: "data" }, { name: "b", shape: [n, 1], values: floats(-2, 2) }],
          ([X, r, b]) => {
            const xtr = matmul(transpose(X!, [1, 0]), r!);
            const rowSums = matmul(transpose(b!, [1, 0]), X!);
            return { outputs: [xtr, rowSums], scales: [mul(matmul(transpose(abs(X!), [1, 0]), abs(r!)), n), mul(matmul(transpose(abs(b!), [1, 0]), abs(X!)), n)] };
          },
        ),
      ),
  };
  return [...reductions, products];
}

// A regression's log density and gradient: η = X·β + α, the rows' terms, their sums and Xᵀ·r,
// which the renderer computes as one row pass (cooperative-row-pass.ts); rows from fewer than the
// workgroup's threads to several times them, so that threads run different numbers of rows.
const regressions: ConformanceCase = {
  name: "a regression's log density and gradient (one row pass)",
  ops: ["matmul", "transpose", "reduce_sum"],
  tolerance: accumulatedTol,
  arbitrary: (dtype: FloatDType) =>
    fc.tuple(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 11 }), fc.constantFrom<RegressionFamily>("logistic", "normal")).chain(([n, k, family]) =>
      instanceArb(
        dtype,
        [
          { name: "X", shape: [n, k], values: floats(-2, 2), leaf: "data" },
          { name: "y", shape: [n], values: family === "logistic" ? fc.constantFrom(0, 1) : floats(-3, 3), leaf: "data" },
          { name: "beta", shape: [k], values: floats(-1, 1) },
          { name: "alpha", shape: [], values: floats(-1, 1) },
        ],
        ([X, y, beta, alpha]) => regressionGradient(family, X!, y!, beta!, alpha!),
      ),
    ),
};

type RegressionFamily = "logistic" | "normal";

/** lp and its gradient in β and α of a logistic or normal regression, with error scales from bounds on |η| and the residuals. */
function regressionGradient(family: RegressionFamily, X: Node, y: Node, beta: Node, alpha: Node): { outputs: Node[]; scales: Node[] } {
  const n = X.shape[0]!;
  const eta = add(matmul(X, beta), alpha);
  const lik = family === "logistic" ? sub(mul(y, eta), softplus(eta)) : mul(-0.5, square(sub(y, eta)));
  const lp = add(sum(lik), sum(mul(-0.5, square(beta))));
  const outputs = optimize([lp, ...grad(lp, [beta, alpha])]);
  // |a residual| ≤ 1 + |y| + |η| and |a row's term| ≤ 2 (1 + |y| + |η|)² in both families.
  const bound = add(add(abs(y), 1), add(matmul(abs(X), abs(beta)), abs(alpha)));
  const scales = [add(mul(sum(square(bound)), 2 * n), sum(square(beta))), mul(matmul(transpose(abs(X), [1, 0]), bound), n), mul(sum(bound), n)];
  return { outputs, scales };
}

// Each case runs in one variant, in turn (every variant still meets every kind of case: the list
// interleaves ops, shapes and reductions), so that CI builds a third of the shaders; PPL_LONG=1 runs
// every case in every variant.
const LONG = process.env["PPL_LONG"] !== undefined && process.env["PPL_LONG"] !== "";

describe("cooperative renderer conformance (one workgroup per graph)", () => {
  const cases = [...conformanceCases(), ...cooperativeReductionCases()];
  variants.forEach(([label, dtype, variant], k) => {
    describe(label, () => {
      for (const c of cases.filter((_, i) => LONG || i % variants.length === k)) {
        it(c.name, async () => {
          await checkConformanceCase(cooperativeBackend(dtype, variant), c, { dtype, numRuns: RUNS, seed: 11 });
        });
      }
    });
  });
});

describe("cooperative row passes", () => {
  // The renderer's plan for a regression: one row pass instead of a kernel a node, nothing of a
  // row's stored (the scratch holds only the sums), and none where a row's value is itself an output.
  const layout = { at: (o: number, f: string) => `S(${o} + ${f})`, dtype: "f32" as const, workgroup: 8, lid: "lid", shared: ["r0", "r1"], sharedCapacity: 24, subgroups: false, barrier: "B();" };
  const leaves: LeafReader = (n, idx) => (n.op === "param" || n.op === "data" ? `${n.attrs.name}[${flatten(n.shape, idx)}]` : undefined);
  const render = (outputs: readonly Node[]) => {
    const scope = new Scope(undefined, "  ");
    const program = renderCooperative(lowerLpdfSums(outputs), leaves, scope, layout);
    return { source: scope.lines.join("\n"), scratch: program.scratchSize };
  };
  const leavesOf = (n: number, k: number) => [data("X", [n, k], "f32"), data("y", [n], "f32"), param("beta", [k], "f32"), param("alpha", [], "f32")] as const;

  it.each(["logistic", "normal"] as const)("a %s regression's gradient over 500 rows is one pass over them, its rows' values never stored", (family) => {
    const [X, y, beta, alpha] = leavesOf(500, 7);
    const { source, scratch } = render(regressionGradient(family, X, y, beta, alpha).outputs);
    expect(source.match(/row pass over X \[500,7\]/g)?.length).toBe(1);
    expect(source.match(/< 500;/g)?.length).toBe(1);
    expect(scratch).toBeLessThan(20);
  });

  for (const [label, dtype, variant] of variants) {
    it(`random regressions against the reference, ${label}`, async () => {
      await checkConformanceCase(cooperativeBackend(dtype, variant), regressions, { dtype, numRuns: 10, seed: 7 });
    });
  }

  it("leaves a row-local output to the node-by-node plan", () => {
    const [X, y, beta, alpha] = leavesOf(50, 3);
    const { outputs } = regressionGradient("normal", X, y, beta, alpha);
    const { source, scratch } = render([...outputs, add(matmul(X, beta), alpha)]);
    expect(source).not.toContain("row pass");
    expect(scratch).toBeGreaterThanOrEqual(50);
  });
});
