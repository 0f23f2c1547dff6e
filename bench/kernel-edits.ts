/**
 * Where a batched gradient kernel's time goes, by timing edited copies of its source: the anchors'
 * gradient (hier: N=100k, J=2000, 4 chains; many: 1024 chains of a 1000 × 10 regression, synthetic
 * data of their shapes from anchor-models.ts; the RESULTS.md figures were taken with hier's groups
 * drawn at random, about the same 50 rows a group) planned with every kernel its own dispatch, the kernel whose source
 * contains NEEDLE replaced by each variant (plain string replacements, applied in order), then
 * timed alone: 200 dispatches a submit, median of 7. Prints the kernel's title, then one JSON line
 * a variant with its µs and the driver's pipeline statistics (registers, spills) where reported.
 *   tsx bench/kernel-edits.ts hier|many NEEDLE ['{"name": [["from", "to"], …], …}'] ['{render limits}']
 * e.g. hier "6 reductions" '{"noMerge": [["if (ppl_done != 48) return;", "return;"]]}'
 * (bench/RESULTS.md, 2026-12-06: where hier's six sums over the rows spend their time).
 */
import { syntheticHier, syntheticLogistic } from "./anchor-models.ts";
import { limitsOf, VulkanManager } from "../packages/vulkan/src/index.ts";
import { boundBytes, residentProgram } from "../packages/vulkan/src/internals.ts";
import { batchedGradientPlan } from "../packages/ppl-vulkan/src/batched-gradient.ts";

const manager = new VulkanManager(0, { pipelineStatistics: true });
const limits = { ...limitsOf(manager.device), ...JSON.parse(process.argv[5] ?? "{}") };
const which = process.argv[2] ?? "hier";
const [m, chains] = which === "hier" ? [syntheticHier(100_000, 2000), 4] : [syntheticLogistic(1000, 10), 1024];
const plan = batchedGradientPlan(m, chains, "f32", limits, "exact", { separate: true });
const variants = JSON.parse(process.argv[4] ?? "{}") as Record<string, [string, string][]>;
const target = plan.kernels.findIndex((k) => k.source.includes(process.argv[3] ?? "6 reductions"));
if (target < 0) throw new Error(`no kernel's source contains '${process.argv[3]}'`);
console.log("kernel", target, plan.kernels[target]!.source.split("\n")[1], "groups", plan.kernels[target]!.groups);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, edits] of Object.entries({ full: [] as [string, string][], ...variants })) {
  let src = plan.kernels[target]!.source;
  for (const [from, to] of edits) {
    if (!src.includes(from)) throw new Error(`variant ${name}: '${from}' is not in the kernel's source`);
    src = src.split(from).join(to);
  }
  const p = { ...plan, kernels: plan.kernels.map((k, i) => (i === target ? { ...k, source: src } : k)) };
  const program = await residentProgram(manager, p);
  for (const n of p.buffers) {
    if (n.op === "data") program.buffers.get(n)!.write(boundBytes(n.dtype, plan.data[n.attrs.name!]!));
    else if (n.op === "param") program.buffers.get(n)!.write(Float32Array.from({ length: n.size }, (_, i) => Math.sin(i * 1.3) * 0.9));
  }
  const all = manager.sequence();
  program.dispatches.forEach((d) => all.dispatch(d.algorithm, d.buffers, d.groups));
  all.submitSync();
  all.destroy();
  const d = program.dispatches[target]!;
  const seq = manager.sequence();
  const evals = 200;
  for (let i = 0; i < evals; i++) seq.dispatch(d.algorithm, d.buffers, d.groups);
  const t: number[] = [];
  for (let i = 0; i < 7; i++) { const t0 = performance.now(); seq.submitSync(); t.push(performance.now() - t0); }
  const st = d.algorithm.statistics()?.map((e) => Object.fromEntries(e.statistics.map((x) => [x.name, x.value])));
  console.log(JSON.stringify({ variant: name, us: +((median(t) / evals) * 1e3).toFixed(2), stats: st }));
  seq.destroy();
  program.destroy();
}
manager.destroy();
