// The op conformance suite against the cooperative renderer (codegen/cooperative.ts), which the
// GPU sampler's workgroup-per-chain shape uses for a model's log density and gradient: every case's
// graph is rendered for ONE workgroup, its intermediates in global scratch or in shared memory, its
// reductions merged through a shared-memory tree or within subgroups first, and compared with the
// CPU reference. Small workgroups, so that the small shapes of the cases reach the cooperative
// reductions (terms ≥ workgroup), and a shared capacity of a few outputs per pass, so that
// reductions with more outputs run in several chunks.
import { describe, it } from "vitest";
import fc from "fast-check";
import { accumulatedTol, checkConformanceCase, conformanceCases, exactTol, floats, instanceArb, type ConformanceCase, type FloatDType } from "@ppl/tensor/testing";
import {
  abs, matmul, max, mul, sum, transpose, tensorValue, type Backend, type Bindings, type DType, type Executable, type Node,
  type TensorValue,
} from "@ppl/tensor";
import { lowerLpdfSums, reduce } from "@ppl/tensor/internals";
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

describe("cooperative renderer conformance (one workgroup per graph)", () => {
  const cases = [...conformanceCases(), ...cooperativeReductionCases()];
  for (const [label, dtype, variant] of variants) {
    describe(label, () => {
      for (const c of cases) {
        it(c.name, async () => {
          await checkConformanceCase(cooperativeBackend(dtype, variant), c, { dtype, numRuns: RUNS, seed: 11 });
        });
      }
    });
  }
});
