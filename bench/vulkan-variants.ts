/**
 * Hand-written kernel variants beside the generated ones, to learn on a real GPU what the
 * codegen should emit for (a) a fused elementwise kernel that streams 256 MiB and (b) the two
 * skinny matmuls of a regression gradient, X[N,D]·B[D,C] and Xᵀ·R, with N = 100k, D = 100, C = 4.
 * The "generated" variants are what the backend's codegen plans for this device (planProgram with
 * limitsOf, as the backend and the batched-gradient sampler call it); their records name the
 * kernels it chose. Each variant's median time is printed as one JSON line; the conclusions are in
 * bench/RESULTS.md.
 *   npx tsx bench/vulkan-variants.ts
 */
import { add, data, exp, matmul, mT, mul, type Node } from "../packages/tensor/src/index.ts";
import { compileGlsl, limitsOf, planProgram, VulkanManager, type VulkanBuffer } from "../packages/vulkan/src/index.ts";
import { kernelPrelude } from "../packages/vulkan/src/codegen/kernel-prelude.ts";
import type { Binding } from "../packages/vulkan/src/codegen/program.ts";
import type { Sequence } from "../packages/vulkan/src/sequence.ts";
import { fillBuffer } from "./fill-buffer.ts";

const manager = new VulkanManager();
const limits = limitsOf(manager.device);
const PRELUDE = kernelPrelude(new Set(["f32"]));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeMs(seq: Sequence, samples = 9): Promise<number> {
  for (let i = 0; i < 2; i++) await seq.submit();
  const t: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await seq.submit();
    t.push(performance.now() - t0);
  }
  return median(t);
}


type Dispatch = { source: string; buffers: VulkanBuffer[]; groups: number | [number, number]; complete?: boolean };

/** Median ms of one pass of `dispatches` (recorded `repeat` times per submit). */
async function timeDispatches(dispatches: Dispatch[], repeat: number): Promise<number> {
  const seq = manager.sequence();
  const algs = await Promise.all(dispatches.map(async (d) => manager.algorithm(await compileGlsl(d.complete ? d.source : `#version 450\n#extension GL_KHR_shader_subgroup_arithmetic : enable\n#extension GL_KHR_shader_subgroup_basic : enable\n${PRELUDE}\n${d.source}`, { optimize: false }), { buffers: d.buffers.length })));
  for (let r = 0; r < repeat; r++) dispatches.forEach((d, i) => seq.dispatch(algs[i]!, d.buffers, d.groups));
  const ms = (await timeMs(seq)) / repeat;
  seq.destroy();
  algs.forEach((a) => a.destroy());
  return ms;
}

/** The first line of each kernel's comment: which strategy the codegen chose (e.g. "skinny matmul, 100 rows x 2 slots …"). */
const kernelTitles = (outputs: Node[]) => planProgram(outputs, limits, kernelPrelude).kernels.map((k) => k.source.split("\n")[1]!.replace(/^\/\/ kernel for /, ""));

/** Median ms of the kernels the codegen plans for `outputs`, over resident buffers (a distinct buffer per binding, as the kernels' `restrict` requires). */
async function generated(outputs: Node[], inputs: Map<Node, VulkanBuffer>, out: VulkanBuffer, repeat: number): Promise<number> {
  const plan = planProgram(outputs, limits, kernelPrelude);
  const bufs = new Map<Binding, VulkanBuffer>();
  const owned: VulkanBuffer[] = [];
  for (const b of plan.buffers) bufs.set(b, inputs.get(b) ?? (b === outputs[0] ? out : own(b.size)));
  for (const b of plan.scratch) bufs.set(b, own(b.size));
  function own(size: number): VulkanBuffer { const nb = manager.buffer(Math.max(4, size * 4)); owned.push(nb); return nb; }
  const ds: Dispatch[] = plan.kernels.map((k) => ({ source: k.source, complete: true, buffers: k.bindings.map((b) => bufs.get(b)!), groups: [k.groups[0], k.groups[1] ?? 1] }));
  const ms = await timeDispatches(ds, repeat);
  owned.forEach((b) => b.destroy());
  return ms;
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
const emit = (r: Record<string, unknown>) => console.log(JSON.stringify(r));

// (a) elementwise y = a·exp(b) + c·d, 16M f32 per input.
{
  const n = 1 << 24;
  const ins = [0, 1, 2, 3].map(() => manager.buffer(n * 4));
  ins.forEach((b, i) => fillBuffer(b, n, -1, 1, i + 1));
  const y = manager.buffer(n * 4);
  const bytes = 5 * n * 4;
  const decl = (vec: boolean) => [0, 1, 2, 3].map((i) => `layout(std430, binding = ${i}) readonly restrict buffer B${i} { ${vec ? "vec4" : "float"} v[]; } b${i};`).join("\n") + `\nlayout(std430, binding = 4) writeonly restrict buffer Y { ${vec ? "vec4" : "float"} v[]; } by;\n`;
  const gridIdx = "int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);";
  const grid = (groups: number): [number, number] => [Math.min(groups, 65535), Math.ceil(groups / 65535)];
  const [a, b, c, d] = ["a", "b", "c", "d"].map((nm) => data(nm, [n], "f32")) as [Node, Node, Node, Node];
  const elementwise = add(mul(a, exp(b)), mul(c, d));
  const variants: [string, () => Promise<number>][] = [
    ["generated", () => generated([elementwise], new Map([[a, ins[0]!], [b, ins[1]!], [c, ins[2]!], [d, ins[3]!]]), y, 4)],
    ...[64, 256].map((ls): [string, () => Promise<number>] => [`loads_first_ls${ls}`, () => timeDispatches([{ source: `layout(local_size_x = ${ls}) in;\n${decl(false)}void main() { ${gridIdx} int u = gid * ${ls} + int(gl_LocalInvocationIndex); if (u >= ${n}) return; float x0 = b0.v[u], x1 = b1.v[u], x2 = b2.v[u], x3 = b3.v[u]; by.v[u] = x0 * ppl_exp(x1) + x2 * x3; }`, buffers: [...ins, y], groups: grid(n / ls) }], 4)]),
    ["lazy_loads_ls256_readonly", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${decl(false)}void main() { ${gridIdx} int u = gid * 256 + int(gl_LocalInvocationIndex); if (u >= ${n}) return; float t = b0.v[u] * ppl_exp(b1.v[u]); by.v[u] = t + b2.v[u] * b3.v[u]; }`, buffers: [...ins, y], groups: grid(n / 256) }], 4)],
    ...[2, 4].map((per): [string, () => Promise<number>] => [`loads_first_ls256_x${per}`, () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${decl(false)}void main() { ${gridIdx} int base = gid * ${256 * per} + int(gl_LocalInvocationIndex); float x0[${per}], x1[${per}], x2[${per}], x3[${per}]; for (int k = 0; k < ${per}; k++) { int u = min(base + k * 256, ${n - 1}); x0[k] = b0.v[u]; x1[k] = b1.v[u]; x2[k] = b2.v[u]; x3[k] = b3.v[u]; } for (int k = 0; k < ${per}; k++) { int u = base + k * 256; if (u < ${n}) by.v[u] = x0[k] * ppl_exp(x1[k]) + x2[k] * x3[k]; } }`, buffers: [...ins, y], groups: grid(n / 256 / per) }], 4)]),
    ["vec4_ls256", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${decl(true)}void main() { ${gridIdx} int u = gid * 256 + int(gl_LocalInvocationIndex); if (u >= ${n / 4}) return; vec4 x0 = b0.v[u], x1 = b1.v[u], x2 = b2.v[u], x3 = b3.v[u]; by.v[u] = x0 * vec4(ppl_exp(x1.x), ppl_exp(x1.y), ppl_exp(x1.z), ppl_exp(x1.w)) + x2 * x3; }`, buffers: [...ins, y], groups: grid(n / 4 / 256) }], 4)],
    ["copy_only_ls256", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${decl(false)}void main() { ${gridIdx} int u = gid * 256 + int(gl_LocalInvocationIndex); if (u >= ${n}) return; float x0 = b0.v[u], x1 = b1.v[u], x2 = b2.v[u], x3 = b3.v[u]; by.v[u] = x0 + x1 + x2 + x3; }`, buffers: [...ins, y], groups: grid(n / 256) }], 4)],
  ];
  for (const [name, run] of variants) {
    const ms = await run();
    emit({ bench: "elementwise", variant: name, ms, GBps: bytes / (ms * 1e6), ...(name === "generated" ? { kernels: kernelTitles([elementwise]) } : {}) });
  }
  [...ins, y].forEach((b) => b.destroy());
}

// (b) skinny matmuls of a regression gradient.
{
  const N = 100_000, D = 100, C = 4;
  const X = manager.buffer(N * D * 4), B = manager.buffer(D * C * 4), R = manager.buffer(N * C * 4);
  const Y = manager.buffer(N * C * 4), G = manager.buffer(D * C * 4);
  fillBuffer(X, N * D, -1, 1, 5); fillBuffer(B, D * C, -1, 1, 6); fillBuffer(R, N * C, -1, 1, 7);
  const XB = data("X", [N, D], "f32"), BB = data("B", [D, C], "f32"), RB = data("R", [N, C], "f32");
  const xbNode = matmul(XB, BB), xtrNode = matmul(mT(XB), RB);
  const bytesXB = (N * D + D * C + N * C) * 4, bytesXR = (N * D + N * C + D * C) * 4;
  const io = `layout(std430, binding = 0) readonly restrict buffer BX { float v[]; } bx;\nlayout(std430, binding = 1) readonly restrict buffer BB { float v[]; } bb;\nlayout(std430, binding = 2) restrict buffer BY { float v[]; } by;\n`;
  const xb: [string, () => Promise<number>][] = [
    ["generated", () => generated([xbNode], new Map([[XB, X], [BB, B]]), Y, 4)],
    ["thread_per_row", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${io}shared float sb[${D * C}];\nvoid main() { for (int i = int(gl_LocalInvocationIndex); i < ${D * C}; i += 256) sb[i] = bb.v[i]; barrier(); int n = int(gl_GlobalInvocationID.x); if (n >= ${N}) return; float acc[${C}]; for (int c = 0; c < ${C}; c++) acc[c] = 0.0; for (int d = 0; d < ${D}; d++) { float x = bx.v[n * ${D} + d]; for (int c = 0; c < ${C}; c++) acc[c] += x * sb[d * ${C} + c]; } for (int c = 0; c < ${C}; c++) by.v[n * ${C} + c] = acc[c]; }`, buffers: [X, B, Y], groups: Math.ceil(N / 256) }], 4)],
    ["subgroup_per_row", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${io}shared float sb[${D * C}];\nvoid main() { for (int i = int(gl_LocalInvocationIndex); i < ${D * C}; i += 256) sb[i] = bb.v[i]; barrier(); int S = int(gl_SubgroupSize); int lane = int(gl_SubgroupInvocationID); int rowsPerGroup = 256 / S; for (int n = int(gl_WorkGroupID.x) * rowsPerGroup + int(gl_SubgroupID); n < ${N}; n += int(gl_NumWorkGroups.x) * rowsPerGroup) { float acc[${C}]; for (int c = 0; c < ${C}; c++) acc[c] = 0.0; for (int d = lane; d < ${D}; d += S) { float x = bx.v[n * ${D} + d]; for (int c = 0; c < ${C}; c++) acc[c] += x * sb[d * ${C} + c]; } for (int c = 0; c < ${C}; c++) { float s = subgroupAdd(acc[c]); if (lane == 0) by.v[n * ${C} + c] = s; } } }`, buffers: [X, B, Y], groups: 2048 }], 4)],
    ["shared_tile_64rows", () => timeDispatches([{ source: `layout(local_size_x = 256) in;\n${io}shared float sb[${D * C}];\nshared float sx[64 * ${D + 1}];\nvoid main() { for (int i = int(gl_LocalInvocationIndex); i < ${D * C}; i += 256) sb[i] = bb.v[i]; int n0 = int(gl_WorkGroupID.x) * 64; for (int e = int(gl_LocalInvocationIndex); e < 64 * ${D}; e += 256) { int r = e / ${D}, d = e - r * ${D}; sx[r * ${D + 1} + d] = n0 + r < ${N} ? bx.v[n0 * ${D} + e] : 0.0; } barrier(); int t = int(gl_LocalInvocationIndex); int r = t / ${C}, c = t - r * ${C}; float acc = 0.0; for (int d = 0; d < ${D}; d++) acc += sx[r * ${D + 1} + d] * sb[d * ${C} + c]; if (n0 + r < ${N}) by.v[(n0 + r) * ${C} + c] = acc; }`, buffers: [X, B, Y], groups: Math.ceil(N / 64) }], 4)],
  ];
  let refY: Float32Array | undefined;
  for (const [name, run] of xb) {
    const ms = await run();
    const got = new Float32Array(Y.read());
    refY ??= got;
    emit({ bench: "matmul_X@B", variant: name, N, D, C, ms, GBps: bytesXB / (ms * 1e6), maxAbsDiff: maxDiff(got, refY), ...(name === "generated" ? { kernels: kernelTitles([xbNode]) } : {}) });
  }
  const part = manager.buffer(4096 * D * C * 4);
  const ioT = `layout(std430, binding = 0) readonly restrict buffer BX { float v[]; } bx;\nlayout(std430, binding = 1) readonly restrict buffer BR { float v[]; } br;\nlayout(std430, binding = 2) restrict buffer BP { float v[]; } bp;\n`;
  const slots = Math.floor(256 / D);
  const xtr = (P: number): Dispatch[] => {
    const rowsPer = Math.ceil(N / P);
    return [
      { source: `layout(local_size_x = 256) in;\n${ioT}shared float red[256 * ${C}];\nvoid main() { int t = int(gl_LocalInvocationIndex); int slot = t / ${D}, d = t - slot * ${D}; float acc[${C}]; for (int c = 0; c < ${C}; c++) acc[c] = 0.0; int n0 = int(gl_WorkGroupID.x) * ${rowsPer}; int n1 = min(${N}, n0 + ${rowsPer}); if (slot < ${slots}) for (int n = n0 + slot; n < n1; n += ${slots}) { float x = bx.v[n * ${D} + d]; for (int c = 0; c < ${C}; c++) acc[c] += x * br.v[n * ${C} + c]; } for (int c = 0; c < ${C}; c++) red[c * 256 + t] = slot < ${slots} ? acc[c] : 0.0; barrier(); if (t < ${D}) for (int c = 0; c < ${C}; c++) { float s = 0.0; for (int k = 0; k < ${slots}; k++) s += red[c * 256 + k * ${D} + t]; bp.v[int(gl_WorkGroupID.x) * ${D * C} + t * ${C} + c] = s; } }`, buffers: [X, R, part], groups: P },
      { source: `layout(local_size_x = 64) in;\nlayout(std430, binding = 0) readonly restrict buffer BP { float v[]; } bp;\nlayout(std430, binding = 1) writeonly restrict buffer BG { float v[]; } bg;\nvoid main() { int u = int(gl_GlobalInvocationID.x); if (u >= ${D * C}) return; float s = 0.0; for (int p = 0; p < ${P}; p++) s += bp.v[p * ${D * C} + u]; bg.v[u] = s; }`, buffers: [part, G], groups: Math.ceil((D * C) / 64) },
    ];
  };
  const xtrVariants: [string, () => Promise<number>][] = [
    ["generated", () => generated([xtrNode], new Map([[XB, X], [RB, R]]), G, 4)],
    ...[264, 528, 1056, 2112, 4096].map((P): [string, () => Promise<number>] => [`row_slots_P${P}`, () => timeDispatches(xtr(P), 4)]),
  ];
  let refG: Float32Array | undefined;
  for (const [name, run] of xtrVariants) {
    const ms = await run();
    const got = new Float32Array(G.read());
    refG ??= got;
    emit({ bench: "matmul_XT@R", variant: name, N, D, C, ms, GBps: bytesXR / (ms * 1e6), maxAbsDiff: maxDiff(got, refG), ...(name === "generated" ? { kernels: kernelTitles([xtrNode]) } : {}) });
  }
  [X, B, R, Y, G, part].forEach((b) => b.destroy());
}
manager.destroy();
