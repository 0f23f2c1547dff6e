/**
 * The GPU as the batched gradient of a layer method's run: the method (ChEES, MEADS, static HMC,
 * random walk, a caller's own) keeps its TypeScript controller on the host, and each round of its
 * chains' gradients is one evaluation of the batched gradient kernels on the device. The prepared
 * runner's plan (transitions "host") owns the run's chains and float type, as the GPU NUTS
 * runner's does; its hostDensity serves every call for the whole batch from the device, and a
 * method's whole leapfrog trajectories (static HMC, ChEES) in one submission each
 * (device-leapfrogs.ts).
 */
import { SamplerOptionError } from "@ppl/ppl";
import type { PreparedRunner, RunPlan } from "@ppl/ppl/runner";
import { limitsOf } from "@ppl/vulkan";
import { batchedGradient } from "./batched-gradient.ts";
import { halfDataNote } from "./data-precision.ts";
import { releaseDevice } from "./device-pool.ts";
import { batchOnDevice, deviceDensity, type DeviceDensity } from "./device-density.ts";
import { deviceLeapfrogs, type DeviceLeapfrogs } from "./device-leapfrogs.ts";
import type { GpuModel } from "./engine.ts";
import { openCheckedDevice } from "./gpu-runner.ts";

/** The execution shape a layer method's run reports: the batched gradient alone, the controller on the host. */
export const GRADIENT_SHAPE = "gradient";

/** A prepared batched gradient for a layer method's run (PreparedRunner with plan.transitions "host"). */
export interface GpuGradient extends PreparedRunner {
  readonly device: string;
  /** The Vulkan device's type: "discrete", "integrated", "cpu" (lavapipe), … */
  readonly deviceType: string;
  /** The kernels' GLSL source. */
  readonly source: string;
  /** Kernels of the gradient program (those that read only data ran once, at preparation). */
  readonly kernels: number;
  /** Kernels dispatched per evaluation (one submission). */
  readonly kernelsPerEvaluation: number;
  /** The device's evaluations so far, and the seconds the host waited for them. */
  readonly density: Pick<DeviceDensity, "evaluations" | "waitSeconds">;
  /** The device's runs of whole leapfrog trajectories (static HMC, ChEES): submissions, steps, the seconds waited. */
  readonly leapfrogs: Pick<DeviceLeapfrogs, "submissions" | "steps" | "waitSeconds" | "recordSeconds" | "dispatchesPerStep">;
}

/**
 * Builds the batched gradient of `plan.chains` chains on the plan's device in its dtype, for a run
 * whose transitions are its sampling method's on the host (plan.transitions "host").
 */
export async function prepareGpuGradient(model: GpuModel, plan: RunPlan): Promise<GpuGradient> {
  if (plan.shape !== undefined && plan.shape !== GRADIENT_SHAPE) {
    throw new SamplerOptionError(`shape: a run whose method takes its transitions on the host uses the GPU's batched gradient alone (shape '${GRADIENT_SHAPE}'), not '${plan.shape}'; leave the shape out`);
  }
  const dataPrecision = plan.dataPrecision ?? "exact";
  const manager = openCheckedDevice(plan.device, plan.dtype, dataPrecision);
  let evaluation: DeviceDensity | undefined;
  let gradient;
  let leapfrogs: DeviceLeapfrogs;
  try {
    const limits = limitsOf(manager.device);
    gradient = await batchedGradient(manager, model, plan.chains, plan.dtype, limits, dataPrecision);
    evaluation = deviceDensity(manager, gradient, plan.chains, model.q.size, plan.dtype);
    leapfrogs = await deviceLeapfrogs(manager, gradient, plan.chains, model.q.size, plan.dtype, limits);
  } catch (e) {
    evaluation?.dispose();
    gradient?.dispose();
    releaseDevice(plan.device, manager);
    throw e;
  }
  const density = evaluation;
  const info = manager.device;
  const ready = gradient;
  return {
    plan: {
      chains: plan.chains, maxDepth: plan.maxDepth, metric: plan.metric, dtype: plan.dtype, shape: GRADIENT_SHAPE, transitions: "host",
      ...(plan.device !== undefined ? { device: plan.device } : {}), ...(dataPrecision === "f16" ? { dataPrecision } : {}),
    },
    device: `${info.name} (${info.type})`,
    deviceType: info.type,
    source: ready.source,
    kernels: ready.kernels,
    kernelsPerEvaluation: ready.step.length,
    density,
    leapfrogs,
    ...(dataPrecision === "f16" ? { note: halfDataNote(ready.half) } : {}),
    factory: () => {
      throw new SamplerOptionError("the GPU's batched gradient runs no transitions: its plan leaves them to the run's method on the host (plan.transitions 'host'); pass it as transitionRunner and the method as method");
    },
    hostDensity: (host) => batchOnDevice(host, density, plan.chains, leapfrogs),
    dispose() {
      leapfrogs.dispose();
      density.dispose();
      ready.dispose();
      releaseDevice(plan.device, manager);
    },
  };
}
