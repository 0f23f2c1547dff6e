/**
 * The sampling calls: which driver runs a run. The calling thread runs every chain (drivers/
 * calling-thread.ts, on the CPU or a transition runner), worker threads share them (threads/), or
 * the run starts on the CPU while a runner is prepared (drivers/pending.ts).
 */
import type { BatchedDensity } from "./density.ts";
import { sampleInThread, sampleInThreadAsync } from "./drivers/calling-thread.ts";
import { usesCheckpoints } from "./drivers/checkpoints.ts";
import { samplePending } from "./drivers/pending.ts";
import { SamplerOptionError } from "./errors.ts";
import type { SampleOptions } from "./options.ts";
import type { SampleResult } from "./result.ts";
import { methodOf } from "./methods/builtin.ts";
import { workerMethod } from "./methods/method-source.ts";
import { checkInteger } from "./settings.ts";
import { sampleThreads } from "./threads/threaded-run.ts";
import { planOwnedOptions } from "./transition-runner.ts";

/** Samples C chains together (synchronously); stops between iterations when `signal` aborts. */
export function sample(density: BatchedDensity, given: SampleOptions = {}): SampleResult {
  // A transition runner's plan gives the run's chains, tree depth and metric, for every driver alike.
  const options = planOwnedOptions(given);
  if ((options.threads ?? 1) !== 1) throw new SamplerOptionError(`threads: sample() runs in the calling thread; use sampleAsync() for ${options.threads} threads`);
  if (options.pendingRunner) throw new SamplerOptionError("pendingRunner: sample() cannot wait for a runner being prepared; use sampleAsync()");
  return sampleInThread(density, options);
}

/**
 * As {@link sample}, but yields to the event loop every `yieldEveryMs`
 * milliseconds (default 50) so that signal handlers (Ctrl-C) can abort it,
 * and runs the chains on `threads` threads where asked.
 */
export async function sampleAsync(
  density: BatchedDensity,
  given: SampleOptions & { yieldEveryMs?: number } = {},
): Promise<SampleResult> {
  const options = planOwnedOptions(given);
  const threads = checkInteger("threads", options.threads ?? 1, 1, 1024);
  if (options.pendingRunner) {
    if (options.transitionRunner) throw new SamplerOptionError("pendingRunner: the run starts on the CPU; leave transitionRunner out");
    return samplePending(density, options);
  }
  // A method that adapts across chains (ChEES) runs them in lockstep, in one thread; so does a
  // method of the caller's own that worker threads cannot import (no SamplingMethod.source).
  const oneThread = options.method !== undefined && (methodOf(options.method).runAdaptation !== undefined || workerMethod(options.method) === null);
  // Checkpoints are taken and restored in the calling thread (the draws are the same bits).
  if (threads > 1 && !oneThread && !usesCheckpoints(options)) return sampleThreads(density, options);
  return sampleInThreadAsync(density, oneThread || usesCheckpoints(options) ? { ...options, threads: 1 } : options);
}
