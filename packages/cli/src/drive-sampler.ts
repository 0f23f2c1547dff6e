/**
 * The sampling loop of `ppl sample`: the library's sampleAsync, plus one hook when warmup ends.
 * The Stan CSV layout needs the adapted step size and inverse metric between the warmup and the
 * sampling draws, and sampleAsync's per-draw callback does not carry the metric; SamplingRun's
 * result() does, so this loop asks for it at the boundary.
 */
import { sampleAsync, SamplingRun, type BatchedDensity, type ChainAdaptationResult, type SampleOptions, type SampleResult } from "@ppl/ppl";

/** Options of driveSampler: the sampler's own, the warmup-end hook, and how often to yield. */
export interface DriveOptions extends SampleOptions {
  /**
   * Called after the last warmup iteration and before the first sampling draw: once for every
   * chain (adaptation[i] is row first + i's); on several threads, once per chain, as each one gets there.
   */
  onWarmupDone?: (adaptation: readonly ChainAdaptationResult[], first: number) => void;
  /** Yield to the event loop this often (ms) so that Ctrl-C and progress output get a turn. */
  yieldEveryMs?: number;
}

/** Runs the sampler to the end or until `signal` aborts, calling `onDraw` for every iteration (the CLI asks for ≥ 1 draw). */
export async function driveSampler(density: BatchedDensity, options: DriveOptions): Promise<SampleResult> {
  // On several threads each chain ends its warmup on its own: the library's threaded run reports them one by one.
  if ((options.threads ?? 1) > 1) return sampleAsync(density, { ...options, onAdapted: (c, a) => options.onWarmupDone?.([a], c) });
  const run = new SamplingRun(density, options);
  const { warmup, draws } = run.settings;
  const every = options.yieldEveryMs ?? 50;
  const signal = options.signal;
  let last = performance.now();
  for (let t = 0; t < warmup + draws; t++) {
    if (signal?.aborted) return run.result(true);
    if (t === warmup) options.onWarmupDone?.(run.result(false).adaptation, 0);
    // A runner that waits for its devices asynchronously (several devices at once) yields at every block.
    if (run.waitsAsync) await run.stepAsync();
    else run.step();
    if (performance.now() - last >= every) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  }
  return run.result(false);
}
