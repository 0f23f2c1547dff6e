/**
 * A placed run prepared, as one call: prepareRun turns a placed plan (placeRun's, place-run.ts:
 * the run's layout with the backend, devices and groups chosen) into the density the sampler
 * evaluates and, on a GPU, the prepared runner that owns the plan (its chains, depth, metric,
 * dtype and shape), or the GPU's runner to move to later. What it decides: which shape several
 * devices share, which float type the CPU computes in, how a run that may use the GPU starts on
 * the CPU.
 */
import { modelDensity, SamplerOptionError, type CompiledModel, type ModelDensity } from "@ppl/ppl";
import { runLayout, splitRunner, type DeviceGroup, type PendingGpu, type PlacedPlan, type PreparedRun, type PreparedRunner } from "@ppl/ppl/runner";
import { castFloats } from "@ppl/tensor/passes";
import { roundedDataModel } from "./data-precision.ts";
import { largestFactorisation } from "./execution-shape.ts";
import { prepareGpuGradient } from "./gpu-gradient.ts";
import { prepareGpuNuts } from "./gpu-runner.ts";
import { deviceGroups } from "./place-run.ts";
import { gpuNutsOptions } from "./gpu-nuts-options.ts";

/**
 * Prepares a run as placed. On Vulkan the NUTS transitions of all chains, and warmup's step-size
 * adaptation between metric updates, run on the GPU; initialization, step-size searches and
 * metric updates run on the host (on the device's batched kernels in the whole-device shape, else
 * with the f64 CPU density). With cpuFallback the run starts on the CPU backend while the GPU's
 * kernel is built (a driver takes a second or more for one it has not built before).
 */
export async function prepareRun(compiled: CompiledModel, plan: PlacedPlan): Promise<PreparedRun> {
  const hint = precisionHint(compiled, plan.dtype);
  if (plan.backend === "cpu") {
    const density = await modelDensity(plan.dtype === "f32" ? castModel(compiled, "f32") : compiled, { backend: "cpu" });
    return { density, ...(hint ? { detail: hint } : {}), dispose: () => undefined };
  }
  // With --data-precision f16 the host evaluates the rounded data the device holds: one posterior.
  const density = await modelDensity(roundedDataModel(compiled, plan.dataPrecision ?? "exact"), { backend: "cpu" });
  if (plan.transitions === "host") return prepareGradientRun(compiled, plan, density);
  const groups = planGroups(plan);
  const prepare = (): Promise<PreparedRunner> => (groups ? prepareGroups(compiled, plan, groups) : prepareGpuNuts(compiled, gpuNutsOptions(runLayout(plan))));
  const detailOf = (gpu: PreparedRunner): string => [
    gpu.plan.shape === "device" ? "GPU NUTS: whole device per gradient (batched gradient kernels and a controller kernel)" : `GPU NUTS kernel: ${gpu.plan.shape} per chain`,
    ...(groups ? [groupsLine(groups)] : []),
    ...(gpu.note !== undefined ? [gpu.note] : []),
    ...(hint ? [hint] : []),
  ].join("\n");
  if (plan.cpuFallback !== undefined) return startOnCpu(compiled, plan.cpuFallback.dtype, density, prepare, detailOf);
  const gpu = await prepare();
  return {
    density: gpu.hostDensity(density),
    transitionRunner: gpu,
    detail: detailOf(gpu),
    ...(gpu.warning !== undefined ? { warning: gpu.warning } : {}),
    dispose: () => gpu.dispose(),
  };
}

// A layer method's run (plan.transitions "host"): its controller on the host, every round of its
// chains' gradients one evaluation of the device's batched gradient. It starts on the GPU: the
// measured move from the CPU (cpuFallback) is the NUTS runner's, and one device serves it.
async function prepareGradientRun(compiled: CompiledModel, plan: PlacedPlan, density: ModelDensity): Promise<PreparedRun> {
  if (plan.devices !== undefined && plan.devices.length > 1) {
    throw new SamplerOptionError(`devices: a run whose method takes its transitions on the host evaluates its batched gradient on one device, not ${plan.devices.length}; give one device`);
  }
  if (plan.cpuFallback !== undefined) {
    throw new SamplerOptionError("cpuFallback: a run whose method takes its transitions on the host starts on the GPU's batched gradient; leave cpuFallback out (the CPU backend runs such a method as well)");
  }
  const gpu = await prepareGpuGradient(compiled, runLayout(plan));
  const hint = precisionHint(compiled, plan.dtype);
  const detail = [
    `GPU batched gradient: the method's transitions run on the host, each round of all ${plan.chains} chains' gradients one device submission (${gpu.kernelsPerEvaluation} kernel${gpu.kernelsPerEvaluation === 1 ? "" : "s"}) and one read`,
    ...(gpu.note !== undefined ? [gpu.note] : []),
    ...(hint ? [hint] : []),
  ].join("\n");
  return { density: gpu.hostDensity(density), transitionRunner: gpu, detail, dispose: () => gpu.dispose() };
}

// A run that starts on the CPU backend and prepares the GPU's sampler when the run asks for it.
async function startOnCpu(
  compiled: CompiledModel,
  dtype: "f32" | "f64",
  density: ModelDensity,
  prepare: () => Promise<PreparedRunner>,
  detailOf: (gpu: PreparedRunner) => string,
): Promise<PreparedRun> {
  const cpuDensity = dtype === "f32" ? await modelDensity(castModel(compiled, "f32"), { backend: "cpu" }) : density;
  let prepared: Promise<PreparedRunner> | null = null;
  let pending: Promise<PendingGpu> | null = null;
  const pendingGpu = (): Promise<PendingGpu> => {
    if (pending) return pending;
    prepared = prepare();
    // Settled by the run, or by dispose: a failure is the run's to report, never an unhandled rejection.
    prepared.catch(() => {});
    pending = prepared.then((gpu): PendingGpu => ({
      ready: { transitionRunner: gpu, density: gpu.hostDensity(density), ...(gpu.blockIterations !== undefined ? { blockIterations: gpu.blockIterations } : {}) },
      detail: detailOf(gpu),
      ...(gpu.warning !== undefined ? { warning: gpu.warning } : {}),
    }));
    pending.catch(() => {});
    return pending;
  };
  return { density: cpuDensity, pendingGpu, dispose: () => void prepared?.then((gpu) => gpu.dispose(), () => {}) };
}

// The plan's groups of chains per device, where it has several devices (a plan placeRun did not
// make may name the devices alone: they then split the chains as placeRun would).
function planGroups(plan: PlacedPlan): readonly DeviceGroup[] | undefined {
  if (plan.groups !== undefined) return plan.groups.length > 1 ? plan.groups : undefined;
  return plan.devices !== undefined && plan.devices.length > 1 ? deviceGroups(plan.chains, plan.devices) : undefined;
}

// One GPU sampler per device, each for its group of consecutive chains (its own manager, program
// and buffers), under one runner. Every group takes the first group's shape, so that the layout
// does not change with the group's size.
async function prepareGroups(compiled: CompiledModel, plan: PlacedPlan, groups: readonly DeviceGroup[]): Promise<PreparedRunner> {
  const layout = runLayout(plan);
  const prepared: PreparedRunner[] = [];
  try {
    for (const group of groups) {
      const shape = layout.shape ?? prepared[0]?.plan.shape;
      prepared.push(await prepareGpuNuts(compiled, gpuNutsOptions({ ...layout, chains: group.chains, device: group.device, ...(shape !== undefined ? { shape } : {}) })));
    }
  } catch (e) {
    for (const p of prepared) p.dispose();
    throw e;
  }
  const split = splitRunner(prepared);
  // Every group holds the same data the same way: the first group's note says it for all.
  const note = prepared[0]?.note;
  return note !== undefined ? { ...split, note } : split;
}

function groupsLine(groups: readonly DeviceGroup[]): string {
  return `chains split over ${groups.length} devices: ${groups.map((g) => `${g.chains} on device ${g.device}`).join(", ")} (one after another within each block of iterations)`;
}

// The model with every float computed in `dtype`; the CPU backend accepts f64 values for f32 leaves,
// so the bindings stay as they are.
function castModel(compiled: CompiledModel, dtype: "f32" | "f64"): CompiledModel {
  const [logDensity, fusedLogDensity, q, generatedFlat] = castFloats([compiled.logDensity, compiled.fusedLogDensity, compiled.q, compiled.generatedFlat], dtype);
  return { ...compiled, logDensity: logDensity!, fusedLogDensity: fusedLogDensity!, q: q!, generatedFlat: generatedFlat! };
}

/**
 * A hint for an f32 density that factorises a matrix: an ill-conditioned one (a Gaussian process's
 * kernel matrix) loses all its digits in f32, and the sampler then diverges rather than fails.
 */
export function precisionHint(compiled: CompiledModel, dtype: "f32" | "f64"): string | undefined {
  if (dtype !== "f32") return undefined;
  const order = largestFactorisation(compiled.logDensity);
  if (order === 0) return undefined;
  return `note: the model factorises a matrix of order ${order} in f32; if it is ill-conditioned (a Gaussian process's kernel matrix often is) most transitions will diverge: use --dtype f64`;
}
