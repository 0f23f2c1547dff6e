import type { VulkanManager } from "@ppl/vulkan";
import type { BatchedGradient } from "./batched-gradient.ts";
import { noteWait, type EngineCounters } from "./engine.ts";

/** The batched gradient as a call from the host (warmup's step-size searches), and what it holds on the device. */
export interface BatchedLogpGrad {
  /** lp ([C]) and gradient ([C·D]) of every chain at positions q ([C·D]). */
  logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array): void;
  dispose(): void;
}

/**
 * Evaluate a batched gradient for the host: the positions written, its kernels run, lp and the
 * gradient copied side by side into host memory and read in place in one read (a read through
 * staging costs the host about a millisecond whatever its size). Each call is a wait for the device
 * like a block's, noted in `counters` with 0 steps, so that the host's own time is the sampling
 * time less waitSeconds.
 */
export function batchedLogpGrad(manager: VulkanManager, gradient: BatchedGradient, chains: number, dim: number, dtype: "f32" | "f64", counters: EngineCounters): BatchedLogpGrad {
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const bytes = Real.BYTES_PER_ELEMENT;
  const evaluated = manager.readbackBuffer(chains * (1 + dim) * bytes);
  const evaluate = manager.sequence();
  gradient.step.forEach((d) => evaluate.dispatch(d.algorithm, d.buffers, d.groups));
  evaluate.copy(gradient.lp, evaluated, { byteLength: chains * bytes }).copy(gradient.grad, evaluated, { byteLength: chains * dim * bytes, dstOffset: chains * bytes });
  return {
    logpGrad(q, lp, grad) {
      gradient.q.write(Real.from(q));
      const t0 = performance.now();
      evaluate.submitSync();
      noteWait(counters, t0, 0);
      const both = evaluated.read(chains * (1 + dim) * bytes);
      lp.set(new Real(both, 0, chains));
      grad.set(new Real(both, chains * bytes, chains * dim));
    },
    dispose() {
      evaluate.destroy();
      evaluated.destroy();
    },
  };
}
