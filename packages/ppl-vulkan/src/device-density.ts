/**
 * The batched gradient as a BatchedDensity: every call for the whole batch is one evaluation on the
 * device (the positions written, the gradient's kernels and a copy of lp and grad into host memory
 * in ONE submission, then one read), so that a layer method (ChEES, MEADS, static HMC, a caller's
 * own) whose controller runs on the host takes each round of all chains' gradients at the price of
 * a submission. Everything the calls use is allocated here, once per run: a round allocates nothing
 * on the host (the positions written from the run's array, the results read into one of this
 * density's).
 */
import type { BatchedDensity } from "@ppl/ppl";
import { leapfrogsByRounds, type Trajectory } from "@ppl/ppl/inference";
import type { ChainBatch } from "@ppl/ppl/runner";
import type { VulkanBuffer, VulkanManager } from "@ppl/vulkan";
import type { BatchedGradient } from "./batched-gradient.ts";
import type { DeviceLeapfrogs } from "./device-leapfrogs.ts";

/** A device density and what it holds on the device. */
export interface DeviceDensity {
  /** lp ([C]) and gradient ([C·D]) at q ([C·D]); with `active`, only the active chains' rows of lp and grad are written. */
  logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void;
  /** Device evaluations so far (one submission and one read each). */
  readonly evaluations: number;
  /** Seconds the host waited for the device's evaluations (submit to done). */
  readonly waitSeconds: number;
  dispose(): void;
}

/**
 * The device's batched gradient of C chains as the host's density. Rows of chains not active in a
 * call keep their lp and grad: the device computes every row, but an idle chain's row must stay
 * the value the chain last took (the batch's invariant, and the bits a CPU run would hold).
 */
export function deviceDensity(manager: VulkanManager, gradient: BatchedGradient, chains: number, dim: number, dtype: "f32" | "f64"): DeviceDensity {
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const bytes = Real.BYTES_PER_ELEMENT;
  const total = chains * (1 + dim);
  const evaluated: VulkanBuffer = manager.readbackBuffer(total * bytes);
  const sequence = manager.sequence();
  gradient.step.forEach((d) => sequence.dispatch(d.algorithm, d.buffers, d.groups));
  sequence.copy(gradient.lp, evaluated, { byteLength: chains * bytes }).copy(gradient.grad, evaluated, { byteLength: chains * dim * bytes, dstOffset: chains * bytes });
  // f32 positions are rounded into this array; f64 ones are written as they are.
  const positions = dtype === "f32" ? new Float32Array(chains * dim) : null;
  // lp and grad as read back, side by side (lp first), into one array of the run.
  const results = new Real(total);
  const state = { evaluations: 0, waitSeconds: 0 };
  return {
    logpGrad(q, lp, grad, active) {
      if (positions) {
        for (let i = 0; i < positions.length; i++) positions[i] = q[i]!;
        gradient.q.write(positions);
      } else gradient.q.write(q);
      const t0 = performance.now();
      sequence.submitSync();
      state.waitSeconds += (performance.now() - t0) / 1e3;
      state.evaluations++;
      evaluated.readInto(results);
      for (let c = 0; c < chains; c++) {
        if (active !== undefined && active[c] === 0) continue;
        lp[c] = results[c]!;
        for (let i = 0, o = chains + c * dim, r = c * dim; i < dim; i++) grad[r + i] = results[o + i]!;
      }
    },
    get evaluations() {
      return state.evaluations;
    },
    get waitSeconds() {
      return state.waitSeconds;
    },
    dispose() {
      sequence.destroy();
      evaluated.destroy();
    },
  };
}

/**
 * The host density with every call for the whole batch (C chains) served by `onDevice`; a call of
 * another size (a single chain's) goes to the host. With `leapfrogs`, a run of whole trajectories
 * (a static-HMC or ChEES iteration) is one submission on the device where it can be, else it goes
 * by rounds of the gradient as on the CPU.
 */
export function batchOnDevice<T extends BatchedDensity>(host: T, onDevice: DeviceDensity, chains: number, leapfrogs?: DeviceLeapfrogs): T {
  const dim = host.dim;
  const logpGrad = (q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void => {
    if (lp.length !== chains || q.length !== chains * dim) host.logpGrad(q, lp, grad, active);
    else onDevice.logpGrad(q, lp, grad, active);
  };
  const density = Object.create(host, { logpGrad: { value: logpGrad } }) as T;
  if (!leapfrogs) return density;
  const byTrajectory = (batch: ChainBatch, trajectories: readonly Trajectory[]): void => {
    if (!leapfrogs.run(batch, trajectories)) leapfrogsByRounds(density, batch, trajectories);
  };
  return Object.defineProperty(density, "leapfrogs", { value: byTrajectory });
}
