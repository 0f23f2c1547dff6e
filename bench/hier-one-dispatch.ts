/**
 * What one dispatch could do for hier's batched gradient (N = 100k rows, J = 2000 groups, 4 chains):
 * a hand-written kernel beside the generated plan, to learn whether a single-dispatch form reaches
 * 2× the floor before the codegen is taught it. The rows are in group order with their segment
 * offsets computed on the host (the data are fixed for a run); each workgroup takes one chain and
 * a block of whole groups, a team of TEAM lanes a group: its lanes sum the group's rows, the team's
 * fixed shuffle tree gives the group's sum, from which its lane 0 writes the group effect's final
 * gradient; the workgroup's sums for the scalars go to partials, and the chain's last workgroup to
 * count in (each chain's counter on a cache line of its own) merges them and writes lp and the
 * scalars' gradients. Fixed orders throughout, so reruns are bit-identical. Checked against a
 * float64 evaluation of the same density on the host (a TEAM wider than the device's subgroups
 * would show there as a large error); timed as kernel-edits.ts times kernels (200 dispatches a
 * submit, median of 7), beside the generated plan's step. Prints one JSON line per variant; a TEAM
 * followed by "-" is timed without the count and the merge (the partials stored, lp and the
 * scalars' gradients left unwritten, so its errors read 1: what the two cost).
 *   tsx bench/hier-one-dispatch.ts [TEAM[-] …] (default 16 8; bench/RESULTS.md, 2026-12-06)
 */
import { compileGlsl, VulkanManager, type VulkanBuffer } from "../packages/vulkan/src/index.ts";
import { kernelPrelude } from "../packages/vulkan/src/codegen/kernel-prelude.ts";
import { batchedGradient } from "../packages/ppl-vulkan/src/batched-gradient.ts";
import { syntheticHier } from "./anchor-models.ts";

const N = 100_000, J = 2000, C = 4, D = 5 + J;
const manager = new VulkanManager(0, { pipelineStatistics: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wave = (i: number) => Math.sin(i * 0.7) * 0.5;

// The data of syntheticHier, rows in group order (group j holds the rows n with n % J = j).
const rows = Array.from({ length: N }, (_, n) => n).sort((a, b) => (a % J) - (b % J) || a - b);
const y = Float32Array.from(rows, (n) => wave(3 * n));
const x = Float32Array.from(rows, (n) => wave(n));
const u = Float32Array.from({ length: J }, (_, j) => wave(j));
const off = new Int32Array(J + 1);
rows.forEach((n) => off[(n % J) + 1]!++);
for (let j = 0; j < J; j++) off[j + 1]! += off[j]!;
const q = Float32Array.from({ length: C * D }, (_, i) => Math.sin(i * 1.3) * 0.9);

/** lp and its gradient in float64 (the density of anchorHier in bench/anchor-models.ts). */
function reference(): { lp: Float64Array; grad: Float64Array } {
  const lp = new Float64Array(C), grad = new Float64Array(C * D);
  const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
  for (let c = 0; c < C; c++) {
    const b = c * D, [mu, gamma, beta, lsa, lsy] = [q[b]!, q[b + 1]!, q[b + 2]!, q[b + 3]!, q[b + 4]!];
    const sa = Math.exp(lsa), sy = Math.exp(lsy);
    let s = 0;
    // Priors: normal(0, 5) on mu, gamma, b; halfNormal(2) on the sigmas with their log-Jacobians; normal(0, 1) on a_raw.
    for (const [k, v] of [[0, mu], [1, gamma], [2, beta]] as const) { s += -0.5 * (v / 5) ** 2 - Math.log(5) - LOG_SQRT_2PI; grad[b + k] = -v / 25; }
    for (const [k, ls, sg] of [[3, lsa, sa], [4, lsy, sy]] as const) { s += -0.5 * (sg / 2) ** 2 - Math.log(2) - LOG_SQRT_2PI + Math.log(2) + ls; grad[b + k] = -(sg * sg) / 4 + 1; }
    for (let j = 0; j < J; j++) {
      const a = q[b + 5 + j]!, alpha = mu + gamma * u[j]! + sa * a;
      s += -0.5 * a * a - LOG_SQRT_2PI;
      let seg = 0;
      for (let n = off[j]!; n < off[j + 1]!; n++) {
        const r = (y[n]! - alpha - beta * x[n]!) / sy, dm = r / sy;
        s += -0.5 * r * r - lsy - LOG_SQRT_2PI;
        seg += dm;
        grad[b + 2] += dm * x[n]!;
        grad[b + 4] += r * r - 1;
      }
      grad[b] += seg; grad[b + 1] += seg * u[j]!; grad[b + 3] += seg * a * sa;
      grad[b + 5 + j] = sa * seg - a;
    }
    lp[c] = s;
  }
  return { lp, grad };
}

/** The kernel for teams of `team` lanes (a workgroup of 256 lanes takes 256 / team groups of one chain). */
function source(team: number, merge = true): { glsl: string; groups: number; perChain: number } {
  const perGroup = 256 / team, perChain = Math.ceil(J / perGroup);
  // A lane's rows all loaded in one trip where a group's 50 rows allow it.
  const unroll = Math.min(16, Math.max(4, Math.ceil(50 / team)));
  const sums = 7; // lp's row terms, Σ(r² − 1), Σ dm·x, Σ seg, Σ seg·u, Σ seg·a·σa, Σ −a²/2
  const tree = [];
  for (let w = team / 2; w >= 1; w /= 2) tree.push(`seg += subgroupShuffleDown(seg, ${w}u);`);
  const glsl = `#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly restrict buffer B0 { float v[]; } bq;
layout(std430, binding = 1) readonly restrict buffer B1 { float v[]; } by;
layout(std430, binding = 2) readonly restrict buffer B2 { float v[]; } bx;
layout(std430, binding = 3) readonly restrict buffer B3 { float v[]; } bu;
layout(std430, binding = 4) readonly restrict buffer B4 { int v[]; } boff;
layout(std430, binding = 5) writeonly restrict buffer B5 { float v[]; } bgrad;
layout(std430, binding = 6) writeonly restrict buffer B6 { float v[]; } blp;
layout(std430, binding = 7) coherent restrict buffer B7 { float v[]; } bpart;
layout(std430, binding = 8) coherent restrict buffer B8 { int v[]; } bcount;
${kernelPrelude(new Set(["f32"]))}
shared float sh[${sums} * 32];
const float LOG_SQRT_2PI = 0.918938533;
void main() {
  int w = int(gl_WorkGroupID.x);
  int c = w / ${perChain}, blk = w - c * ${perChain};
  int t = int(gl_LocalInvocationIndex), team = t / ${team}, lane = t - team * ${team};
  int j = blk * ${perGroup} + team;
  bool has = j < ${J};
  int jj = min(j, ${J - 1});
  int qb = c * ${D};
  float mu = bq.v[qb], gamma = bq.v[qb + 1], beta = bq.v[qb + 2], lsa = bq.v[qb + 3], lsy = bq.v[qb + 4];
  float a = bq.v[qb + 5 + jj], uj = bu.v[jj];
  int lo = boff.v[jj], hi = has ? boff.v[jj + 1] : lo;
  float sa = ppl_exp(lsa), sy = ppl_exp(lsy);
  float alpha = mu + gamma * uj + sa * a;
  float s0 = 0.0, s1 = 0.0, s2 = 0.0, seg = 0.0;
  for (int n0 = lo + lane; n0 < hi; n0 += ${unroll * team}) {
    float ys[${unroll}], xs[${unroll}];
    for (int k = 0; k < ${unroll}; k++) { int n = min(n0 + k * ${team}, hi - 1); ys[k] = by.v[n]; xs[k] = bx.v[n]; }
    for (int k = 0; k < ${unroll}; k++) {
      if (n0 + k * ${team} < hi) {
        float r = (ys[k] - alpha - beta * xs[k]) / sy;
        float dm = r / sy;
        s0 += -0.5 * r * r - lsy - LOG_SQRT_2PI;
        s1 += r * r - 1.0;
        s2 += dm * xs[k];
        seg += dm;
      }
    }
  }
  ${tree.join("\n  ")}
  if (lane == 0 && has) bgrad.v[qb + 5 + j] = sa * seg - a;
  bool lead = lane == 0 && has;
  float v[${sums}];
  v[0] = s0; v[1] = s1; v[2] = s2;
  v[3] = lead ? seg : 0.0; v[4] = lead ? seg * uj : 0.0; v[5] = lead ? seg * a * sa : 0.0; v[6] = lead ? -0.5 * a * a - LOG_SQRT_2PI : 0.0;
  for (int k = 0; k < ${sums}; k++) { float s = subgroupAdd(v[k]); if (subgroupElect()) sh[k * 32 + int(gl_SubgroupID)] = s; }
  memoryBarrierShared(); barrier();
  if (gl_SubgroupID != 0) return;
  bool last = false;
  for (int k = 0; k < ${sums}; k++) {
    float acc = 0.0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) acc += sh[k * 32 + int(i)];
    v[k] = subgroupAdd(acc);
  }
  if (subgroupElect()) {
    for (int k = 0; k < ${sums}; k++) bpart.v[(c * ${sums} + k) * ${perChain} + blk] = v[k];
    memoryBarrierBuffer();
    ${merge ? `last = atomicAdd(bcount.v[c * 32], 1) == ${perChain - 1};` : ""}
  }
  if (!subgroupAny(last)) return;
  memoryBarrierBuffer();
  // Every partial's load issued before any sum (one memory round trip), then the subgroup's sums.
  for (int k = 0; k < ${sums}; k++) v[k] = 0.0;
  for (uint i = gl_SubgroupInvocationID; i < ${perChain}u; i += gl_SubgroupSize)
    for (int k = 0; k < ${sums}; k++) v[k] += bpart.v[(c * ${sums} + k) * ${perChain} + int(i)];
  for (int k = 0; k < ${sums}; k++) v[k] = subgroupAdd(v[k]);
  if (subgroupElect()) {
    float lp = v[0] + v[6];
    lp += -0.5 * (mu / 5.0) * (mu / 5.0) - 1.609437912 - LOG_SQRT_2PI;
    lp += -0.5 * (gamma / 5.0) * (gamma / 5.0) - 1.609437912 - LOG_SQRT_2PI;
    lp += -0.5 * (beta / 5.0) * (beta / 5.0) - 1.609437912 - LOG_SQRT_2PI;
    lp += -0.5 * (sa / 2.0) * (sa / 2.0) - LOG_SQRT_2PI + lsa;
    lp += -0.5 * (sy / 2.0) * (sy / 2.0) - LOG_SQRT_2PI + lsy;
    blp.v[c] = lp;
    bgrad.v[qb] = v[3] - mu / 25.0;
    bgrad.v[qb + 1] = v[4] - gamma / 25.0;
    bgrad.v[qb + 2] = v[2] - beta / 25.0;
    bgrad.v[qb + 3] = v[5] - sa * sa / 4.0 + 1.0;
    bgrad.v[qb + 4] = v[1] - sy * sy / 4.0 + 1.0;
    bcount.v[c * 32] = 0;
  }
}
`;
  return { glsl, groups: C * perChain, perChain };
}

const buffer = (arr: Float32Array | Int32Array): VulkanBuffer => {
  const b = manager.buffer(Math.max(4, arr.byteLength));
  b.write(arr);
  return b;
};
const ref = reference();
const args = process.argv.slice(2);
for (const arg of args.length > 0 ? args : ["16", "8"]) {
  const team = Number(arg.replace("-", "")), merge = !arg.endsWith("-");
  const { glsl, groups, perChain } = source(team, merge);
  const algorithm = manager.algorithm(await compileGlsl(glsl), { buffers: 9 });
  const grad = manager.buffer(C * D * 4), lp = manager.buffer(C * 4);
  const bufs = [buffer(q), buffer(y), buffer(x), buffer(u), buffer(off), grad, lp, manager.buffer(C * 7 * perChain * 4), buffer(new Int32Array(C * 32))];
  const once = manager.sequence().dispatch(algorithm, bufs, groups);
  once.submitSync();
  const g = new Float32Array(grad.read()), l = new Float32Array(lp.read());
  const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(b));
  const gradErr = Math.max(...Array.from(g, (v, i) => rel(v, ref.grad[i]!)));
  const lpErr = Math.max(...Array.from(l, (v, i) => rel(v, ref.lp[i]!)));
  once.submitSync();
  const rerunSame = new Float32Array(grad.read()).every((v, i) => Object.is(v, g[i]));
  const seq = manager.sequence();
  const evals = 200;
  for (let i = 0; i < evals; i++) seq.dispatch(algorithm, bufs, groups);
  const times: number[] = [];
  for (let i = 0; i < 7; i++) { const t0 = performance.now(); seq.submitSync(); times.push(performance.now() - t0); }
  console.log(JSON.stringify({ variant: `one dispatch, ${team} lanes a group${merge ? "" : ", no count or merge"}`, workgroups: groups, us: +((median(times) / evals) * 1e3).toFixed(2), max_rel_err_grad: +gradErr.toExponential(2), max_rel_err_lp: +lpErr.toExponential(2), rerun_bit_identical: rerunSame, stats: algorithm.statistics()?.map((e) => Object.fromEntries(e.statistics.map((s) => [s.name, s.value]))) ?? null }));
  [seq, once].forEach((s) => s.destroy());
  bufs.forEach((b) => b.destroy());
  algorithm.destroy();
}
// The generated plan's step, timed the same way in the same process.
{
  const bg = await batchedGradient(manager, syntheticHier(N, J), C, "f32");
  bg.q.write(q);
  const seq = manager.sequence();
  const evals = 200;
  for (let i = 0; i < evals; i++) bg.step.forEach((d) => seq.dispatch(d.algorithm, d.buffers, d.groups));
  const times: number[] = [];
  for (let i = 0; i < 7; i++) { const t0 = performance.now(); seq.submitSync(); times.push(performance.now() - t0); }
  console.log(JSON.stringify({ variant: "generated plan", dispatches: bg.step.length, us: +((median(times) / evals) * 1e3).toFixed(2) }));
  seq.destroy();
  bg.dispose();
}
manager.destroy();
