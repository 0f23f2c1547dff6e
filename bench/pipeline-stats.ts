/**
 * What the driver compiles the GPU sampler's kernels into, for the anchor cases: each pipeline's
 * statistics as the device reports them through VK_KHR_pipeline_executable_properties
 * (registers, spills, local and shared memory, instruction counts — named by the driver), one
 * JSON line per kernel. Devices without the extension (lavapipe) print one line saying so.
 *   npx tsx bench/pipeline-stats.ts [--device N]
 * Synthetic data of the anchors' shapes: the kernels depend on shapes, not values.
 */
import { compileModel, type CompiledModel } from "../packages/ppl/src/index.ts";
import { compileGlsl, limitsOf, listDevices, VulkanManager } from "../packages/vulkan/src/index.ts";
import { batchedGradientPlan } from "../packages/ppl-vulkan/src/batched-gradient.ts";
import { chooseControllerMode, controllerProgram, workgroupController, type ControllerMode } from "../packages/ppl-vulkan/src/controller-program.ts";
import { nutsProgram } from "../packages/ppl-vulkan/src/nuts-program.ts";
import { syntheticHier, syntheticLogistic } from "./anchor-models.ts";
import eightSchools from "../examples/eight_schools.ts";

const args = process.argv.slice(2);
const deviceArg = args.indexOf("--device");
const deviceIndex = deviceArg >= 0 ? Number(args[deviceArg + 1]) : listDevices().devices.findIndex((d) => d.rejected === null);
const manager = new VulkanManager(deviceIndex, { pipelineStatistics: true });
const limits = limitsOf(manager.device);

const es = compileModel(eightSchools, { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] });

async function report(kernel: string, source: string): Promise<void> {
  const bindings = [...source.matchAll(/binding = (\d+)/g)].map((m) => Number(m[1]));
  const algorithm = manager.algorithm(await compileGlsl(source, { optimize: false }), {
    buffers: Math.max(0, ...bindings) + 1,
    // The fused transition takes its iteration offset and count as push constants.
    pushConstantSize: /push_constant/.test(source) ? 8 : 0,
  });
  const executables = algorithm.statistics();
  const stats = executables?.map((e) => ({ name: e.name, subgroupSize: e.subgroupSize, ...Object.fromEntries(e.statistics.map((s) => [s.name, s.value])) })) ?? null;
  console.log(JSON.stringify({ kernel, glslChars: source.length, executables: stats }));
  algorithm.destroy();
}

if (!manager.device.features.pipelineExecutableInfo) {
  console.log(JSON.stringify({ device: manager.device.name, note: "the device does not report pipeline executable statistics" }));
} else {
  const many = syntheticLogistic(1000, 10);
  const hier = syntheticHier(100_000, 2000);
  const controller = async (name: string, m: CompiledModel, chains: number, mode: ControllerMode) =>
    report(name, controllerProgram(m.dim, { chains, maxDepth: 10, dtype: "f32", mode, subgroups: limits.subgroupArithmetic }));
  await controller("many: controller, thread per chain", many, 1024, { kind: "thread" });
  await controller("many: controller, workgroup of 32 per chain", many, 1024, workgroupController(many.dim));
  await controller("hier: controller, workgroup per chain", hier, 4, chooseControllerMode(hier.dim, 10, "discrete"));
  // Wider workgroups hold fewer of hier's 2005 elements a thread (bench/RESULTS.md: slower steps).
  for (const W of [512, 1024]) await controller(`hier: controller, workgroup of ${W} per chain`, hier, 4, { kind: "workgroup", workgroup: W });
  const lr = syntheticLogistic(100_000, 100);
  await controller("lr: controller, workgroup per chain", lr, 4, chooseControllerMode(lr.dim, 10, "discrete"));
  for (const W of [32, 64, 128]) {
    await report(`many: fused transition, workgroup of ${W}`, nutsProgram(many.logDensity, many.q, { chains: 1024, maxDepth: 10, dtype: "f32", shape: "workgroup", workgroup: W, limits }).source);
  }
  await report("many: fused transition, thread per chain", nutsProgram(many.logDensity, many.q, { chains: 1024, maxDepth: 10, dtype: "f32", shape: "thread" }).source);
  await report("eight schools: fused transition, thread per chain", nutsProgram(es.logDensity, es.q, { chains: 4, maxDepth: 10, dtype: "f32", shape: "thread" }).source);
  const kernels = async (name: string, m: CompiledModel, chains: number) => {
    const plan = batchedGradientPlan(m, chains, "f32", limits);
    for (const [i, k] of plan.kernels.entries()) await report(`${name}: batched gradient kernel ${i}`, k.source);
  };
  await kernels("lr", lr, 4);
  await kernels("many", many, 1024);
  await kernels("hier", hier, 4);
}
manager.destroy();
