/**
 * The calling thread's driver: every chain of the run in this thread, on the CPU or on a
 * transition runner (a GPU) that may fall back to the CPU (runner-fallback.ts). The asynchronous
 * form yields to the event loop between iterations, so that a signal handler (Ctrl-C) can stop it,
 * and awaits a runner that waits for its devices asynchronously.
 */
import type { BatchedDensity } from "../density.ts";
import type { SampleOptions } from "../options.ts";
import type { SampleResult } from "../result.ts";
import { SamplingRun } from "../sampling-run.ts";
import { sampleThreads } from "../threads/threaded-run.ts";
import { CheckpointSaver, resumeRun } from "./checkpoints.ts";
import { cpuOptions, FallbackWatch } from "./runner-fallback.ts";

/** Samples every chain in the calling thread, synchronously; stops between iterations when `signal` aborts. */
export function sampleInThread(density: BatchedDensity, options: SampleOptions): SampleResult {
  let run = new SamplingRun(density, options);
  resumeRun(run, options);
  const saver = new CheckpointSaver(options);
  const signal = options.signal;
  const watch = new FallbackWatch(run, options);
  while (!run.done) {
    if (signal?.aborted) return watch.withDecision(run.result(true));
    run.step();
    saver.after(run);
    const moved = watch.check(run);
    if (moved) {
      run = new SamplingRun(options.fallback!.density, cpuOptions(options));
      run.restore(moved);
    }
  }
  return watch.withDecision(run.result(false));
}

/** As sampleInThread, yielding every `yieldEveryMs` (50) and awaiting an asynchronous runner; a fallback may go on over threads. */
export async function sampleInThreadAsync(density: BatchedDensity, options: SampleOptions & { yieldEveryMs?: number }): Promise<SampleResult> {
  let run = new SamplingRun(density, options);
  resumeRun(run, options);
  const saver = new CheckpointSaver(options);
  const signal = options.signal;
  const every = options.yieldEveryMs ?? 50;
  const watch = new FallbackWatch(run, options);
  let last = performance.now();
  while (!run.done) {
    if (signal?.aborted) return watch.withDecision(run.result(true));
    // A runner that waits for its devices asynchronously yields at every block it waits for.
    if (run.waitsAsync) await run.stepAsync();
    else run.step();
    saver.after(run);
    const moved = watch.check(run);
    if (moved) {
      const cpu = { ...cpuOptions(options), threads: options.fallback!.threads };
      if (cpu.threads > 1 && typeof (options.fallback!.density as { share?: unknown }).share === "function") {
        return watch.withDecision(await sampleThreads(options.fallback!.density, cpu, {}, moved));
      }
      run = new SamplingRun(options.fallback!.density, { ...cpu, threads: 1 });
      run.restore(moved);
    }
    if (performance.now() - last >= every) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  }
  return watch.withDecision(run.result(false));
}
