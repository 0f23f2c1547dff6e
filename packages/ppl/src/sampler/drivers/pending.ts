/**
 * A run that starts on the CPU while its transition runner (a GPU kernel) is still being prepared,
 * and moves to the runner once it is ready and measures faster. A driver builds a fused kernel in
 * a second or more on a machine that has not built it before, and a small posterior samples on the
 * CPU in less: waiting for the kernel made such runs slower than the CPU backend alone.
 *
 * The CPU samples the chains meanwhile, over `threads` worker threads where the density can be
 * shared with them (the calling thread starts alone and hands every chain to the workers once
 * they are ready, keeping its own time for the runner's preparation; threads/threaded-run.ts), on the
 * calling thread alone otherwise, and its pace is timed as it goes. A runner given as a function
 * is prepared only once the CPU's work left is long enough to gain from it. Once the runner is
 * ready and the CPU has been timed for `probeSeconds`, every thread stops after a common iteration
 * and hands its chains back, the runner runs a trial of a few short blocks from a copy of where
 * the chains stand (thrown away), and the chains move to it unless the CPU, spread over its
 * threads, takes a gradient `margin` times faster. A runner beaten before
 * warmup's first metric update is tried once more after it. Kept on the CPU, the run goes on over
 * `threads` threads. A preparation that fails leaves the run on the CPU.
 *
 * The choice reads the clock, so two runs of one seed can differ where it does; a run that must
 * draw the same bits every time pins its backend.
 */
import type { BatchedDensity } from "../density.ts";
import { cpuIsFaster, DEFAULT_MARGIN, secondHalfSecondsPerGradient } from "../fallback.ts";
import type { PendingRunner, ReadyRunner, SampleOptions } from "../options.ts";
import { ProgressPace } from "../pace.ts";
import { firstMetricUpdate, lazyStart, runnerBlock, runSecondsPerGradient, TRIAL_BLOCKS, type LazyStart, type TrialBlock } from "../pending-runner.ts";
import type { PendingRunnerDecision, SampleResult } from "../result.ts";
import { detached, reevaluated, type RunState } from "../run-state.ts";
import { SamplingRun } from "../sampling-run.ts";
import { hostStepsOf, resolveSettings } from "../settings.ts";
import { prestartSamplerThreads } from "../threads/pool.ts";
import { sampleThreads, sampleThreadsPausable } from "../threads/threaded-run.ts";
// A state whose run took `seconds` more, counted to warmup or sampling as its iteration is.
function withTime(state: RunState, seconds: number, warmup: number): RunState {
  const ms = seconds * 1000;
  return state.iteration < warmup ? { ...state, warmupMs: state.warmupMs + ms } : { ...state, samplingMs: state.samplingMs + ms };
}

/** Samples as sampleAsync does, starting on `density` (the CPU) while options.pendingRunner is prepared. */
export async function samplePending(density: BatchedDensity, options: SampleOptions & { yieldEveryMs?: number }): Promise<SampleResult> {
  const startedAt = performance.now();
  const pending = options.pendingRunner!;
  const { pendingRunner: _p, transitionRunner: _r, fallback: _f, ...cpu } = options;
  const threads = Math.max(1, options.threads ?? 1);
  const shared = typeof (density as { share?: unknown }).share === "function";
  let ready: ReadyRunner | null = null;
  let failure: string | null = null;
  const starter = lazyStart(pending, (r) => (ready = r), (e) => (failure = e));
  const threaded = threads > 1 && shared;
  // A runner already prepared (or failed) is seen before the first iteration.
  await null;
  // Started now, so that the chains find threads ready.
  if (threaded) prestartSamplerThreads(threads - 1);
  if (threaded && Math.min(threads, resolveSettings(options).chains) > 1) {
    return samplePendingThreaded(density, options, () => ready, () => failure, starter, startedAt);
  }

  let run = new SamplingRun(density, { ...cpu, threads: 1 });
  const s = run.settings;
  const chainThreads = Math.min(threads, s.chains);
  // A runner is left for the CPU only after warmup's first metric update: in the init buffer the
  // chains' step sizes and tree depths differ most, which a fused kernel waits for (on the H200,
  // low_dim_gauss_mix's trial at iteration 16 took 94 µs a gradient, where its whole run on the
  // GPU takes 9). A runner that wins there already is taken at once.
  const earliest = pending.earliest ?? firstMetricUpdate(run.hostSteps, s.warmup);
  const signal = options.signal;
  const cpuTime = new CpuTiming();
  let decision: PendingRunnerDecision | undefined;
  const decide = (d: Omit<PendingRunnerDecision, "seconds">): void => void (decision = decided(pending, d, startedAt));
  const result = (aborted: boolean): SampleResult => {
    if (!decision) decide({ reason: starter.started ? "ended" : "short", iteration: run.iterationsDone, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false });
    return { ...run.result(aborted), pendingRunner: decision! };
  };
  let onRunner = false;
  let triedEarly = false;
  let trialSeconds = 0;
  let last = performance.now();
  while (!run.done) {
    if (signal?.aborted) return result(true);
    if (run.waitsAsync) await run.stepAsync();
    else if (onRunner || decision !== undefined) run.step();
    else starter.consider(cpuTime.step(run, s.warmup + s.draws, chainThreads));
    if (decision === undefined && !run.done) {
      if (failure !== null) {
        decide({ reason: "failed", iteration: run.iterationsDone, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false, error: failure });
      } else if (ready !== null && (run.iterationsDone >= earliest || !triedEarly) && cpuTime.seconds >= (pending.probeSeconds ?? 0.1) && cpuTime.times.length >= 2 && starter.worthIt(cpuTime.left)) {
        const r: ReadyRunner = ready;
        const cpuPerGradient = secondHalfSecondsPerGradient(cpuTime.times, cpuTime.gradients) / chainThreads;
        const t0 = performance.now();
        const runnerPerGradient = trialOnRunner(run.handOver(0, s.chains), run.hostSteps, r, cpu, pending.trialBlockSeconds ?? 0.02, pending.trialSeconds ?? 0.25);
        trialSeconds += (performance.now() - t0) / 1000;
        const moved = !cpuIsFaster(runnerPerGradient, cpuPerGradient, pending.margin ?? DEFAULT_MARGIN);
        // The trials' time is part of the run's (of warmup's or sampling's, where they ran).
        const state = withTime(run.handOver(0, s.chains), (performance.now() - t0) / 1000, s.warmup);
        // Before `earliest` only a runner that wins already is taken; one that loses there is
        // tried again once `earliest` is reached.
        if (!moved && run.iterationsDone < earliest) {
          triedEarly = true;
          run = new SamplingRun(density, { ...cpu, threads: 1 });
          run.restore(state);
          continue;
        }
        decide({ reason: "measured", iteration: run.iterationsDone, runnerSecondsPerGradient: runnerPerGradient, cpuSecondsPerGradient: cpuPerGradient, threads: chainThreads, moved, trialSeconds });
        if (moved) {
          run = new SamplingRun(r.density, { ...cpu, threads: 1, transitionRunner: r.transitionRunner });
          run.restore(reevaluated(state, r.density));
          onRunner = true;
        } else if (threaded && chainThreads > 1) {
          const rest = await sampleThreads(density, cpu, {}, state);
          return { ...rest, pendingRunner: decision! };
        } else {
          run = new SamplingRun(density, { ...cpu, threads: 1 });
          run.restore(state);
        }
      }
    }
    // While the runner is being prepared, its preparation's steps (a compiler's output, a
    // pipeline built on another thread) wait for this loop to yield: it yields often.
    const every = decision === undefined ? 5 : (options.yieldEveryMs ?? 50);
    if (performance.now() - last >= every) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  }
  return result(false);
}

// The CPU's iterations until the decision: their seconds and gradients, and the seconds left.
class CpuTiming {
  readonly times: number[] = [];
  readonly gradients: number[] = [];
  seconds = 0;
  left = NaN;
  private readonly progress = new ProgressPace();

  // Steps `run` once, timed; returns the CPU's seconds left at its pace (the later half of its
  // time) over the `total` iterations, spread over its threads.
  step(run: SamplingRun, total: number, chainThreads: number): number {
    const before = run.evaluationsDone;
    const t0 = performance.now();
    run.step();
    const dt = (performance.now() - t0) / 1000;
    this.times.push(dt);
    this.gradients.push(run.evaluationsDone - before);
    this.seconds += dt;
    this.progress.add(this.seconds, run.iterationsDone);
    const perIteration = this.progress.secondsPerIteration(this.seconds, run.iterationsDone);
    this.left = Number.isNaN(perIteration) ? NaN : (perIteration * (total - run.iterationsDone)) / chainThreads;
    return this.left;
  }
}

// Seconds per gradient of one chain of the runner's trial from a copy of `state` (where the
// chains stand; runSecondsPerGradient of its blocks), on a run that is thrown away. It ends after a
// block past the second that took `blockSeconds`, after the longest block, or once it has taken
// `budgetSeconds`. `hostSteps`: the iterations after which warmup's host acts (SamplingRun.hostSteps).
function trialOnRunner(state: RunState, hostSteps: readonly number[], ready: ReadyRunner, options: SampleOptions, blockSeconds: number, budgetSeconds: number): number {
  const s = resolveSettings(options);
  const total = s.warmup + s.draws;
  const runBlock = ready.blockIterations ?? 100;
  const copy = reevaluated(detached(state), ready.density);
  let limit: number = TRIAL_BLOCKS[0];
  const trial = new SamplingRun(ready.density, {
    ...options, threads: 1, transitionRunner: ready.transitionRunner, runnerBlockLimit: () => limit,
    onDraw: undefined, onAdapted: undefined, signal: undefined,
  });
  trial.restore(copy);
  const started = performance.now();
  const blocks: TrialBlock[] = [];
  let first: TrialBlock | null = null;
  for (const [b, most] of TRIAL_BLOCKS.entries()) {
    if (trial.done) break;
    limit = most;
    const before = trial.runnerCost;
    const k = runnerBlock(trial.iterationsDone, s.warmup, total, hostSteps, Math.min(runBlock, most));
    // Synchronous steps: a runner that starts its next block ahead when stepped asynchronously
    // would leave that block on the device for the run that follows.
    let iterations = 0;
    for (; iterations < k && !trial.done; iterations++) trial.step();
    const after = trial.runnerCost;
    const block = { seconds: after.seconds - before.seconds, gradients: after.gradients - before.gradients, iterations };
    // The first block also pays the kernel's first dispatch: never measured, unless the budget is spent on it.
    if (b === 0) first = block;
    else blocks.push(block);
    if ((b >= 2 && block.seconds >= blockSeconds) || (performance.now() - started) / 1000 >= budgetSeconds) break;
  }
  return runSecondsPerGradient(blocks.length > 0 ? blocks : first !== null ? [first] : [], runBlock);
}

// The CPU phase on threads: runs of the pool that the calling thread pauses (every thread after a
// common iteration, its chains handed back) once the runner is ready and the CPU has been timed;
// then the trial, and the chains go to the runner or on over the threads.
async function samplePendingThreaded(
  density: BatchedDensity, options: SampleOptions & { yieldEveryMs?: number },
  ready: () => ReadyRunner | null, failure: () => string | null, starter: LazyStart, startedAt: number,
): Promise<SampleResult> {
  const pending = options.pendingRunner!;
  const { pendingRunner: _p, transitionRunner: _r, fallback: _f, ...cpu } = options;
  const s = resolveSettings(cpu);
  const chainThreads = Math.min(Math.max(1, options.threads ?? 1), s.chains);
  const hostSteps = hostStepsOf(s.warmup);
  const earliest = pending.earliest ?? firstMetricUpdate(hostSteps, s.warmup);
  let decision: PendingRunnerDecision | undefined;
  const decide = (d: Omit<PendingRunnerDecision, "seconds">): void => void (decision = decided(pending, d, startedAt));
  const ended = (result: SampleResult): SampleResult => {
    if (!decision) decide({ reason: starter.started ? "ended" : "short", iteration: result.warmupDone + result.drawsDone, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false });
    return { ...result, pendingRunner: decision! };
  };
  let state: RunState | undefined;
  let triedEarly = false;
  let trialSeconds = 0;
  for (;;) {
    const from = state?.iteration ?? 0;
    const segmentStart = performance.now();
    const progress = new ProgressPace();
    // The workers take every chain, the calling thread none: it runs the runner's preparation,
    // whose steps would hold its chains back (and the others would wait for them at the pause).
    // A run resumed after a trial hands its chains out at once: the workers are warm.
    const outcome = await sampleThreadsPausable(density, { ...cpu, yieldEveryMs: 5 }, {
      handOverAll: true,
      // After a trial lost before `earliest`, every thread stops there for the next one.
      ...(state !== undefined ? { enlistAfterSeconds: 0, ...(triedEarly && state.iteration < earliest ? { pauseAt: earliest } : {}) } : {}),
      handBack: (iteration, timedSeconds) => {
        // The run's seconds left at the pace of this segment (its threads together).
        const now = (performance.now() - segmentStart) / 1000;
        progress.add(now, iteration);
        const left = progress.secondsPerIteration(now, iteration) * (s.warmup + s.draws - iteration);
        starter.consider(left);
        const f = failure();
        if (f !== null && decision === undefined) {
          decide({ reason: "failed", iteration, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false, error: f });
        }
        if (decision !== undefined || ready() === null || options.signal?.aborted || !starter.worthIt(left)) return false;
        // Two iterations at least, and the threads that hold the chains timed for probeSeconds.
        const timed = iteration - from >= 2 && timedSeconds >= (pending.probeSeconds ?? 0.1);
        return timed && (iteration >= earliest || !triedEarly);
      },
    }, state);
    if (outcome.kind === "result") return ended(outcome.result);
    // Paused at `earliest` after the preparation failed meanwhile: the run goes on over the threads.
    if (decision !== undefined) return { ...(await sampleThreads(density, { ...cpu, yieldEveryMs: 5 }, { enlistAfterSeconds: 0 }, outcome.state)), pendingRunner: decision };
    const r = ready()!;
    const cpuPerGradient = outcome.pace.gradients > 0 ? outcome.pace.seconds / outcome.pace.gradients / chainThreads : NaN;
    const t0 = performance.now();
    const runnerPerGradient = trialOnRunner(outcome.state, hostSteps, r, cpu, pending.trialBlockSeconds ?? 0.02, pending.trialSeconds ?? 0.25);
    trialSeconds += (performance.now() - t0) / 1000;
    const moved = !cpuIsFaster(runnerPerGradient, cpuPerGradient, pending.margin ?? DEFAULT_MARGIN);
    // The trials' time is part of the run's (of warmup's or sampling's, where they ran).
    state = withTime(outcome.state, (performance.now() - t0) / 1000, s.warmup);
    if (!moved && state.iteration < earliest) {
      triedEarly = true;
      continue;
    }
    decide({ reason: "measured", iteration: state.iteration, runnerSecondsPerGradient: runnerPerGradient, cpuSecondsPerGradient: cpuPerGradient, threads: chainThreads, moved, trialSeconds });
    if (!moved) return { ...(await sampleThreads(density, { ...cpu, yieldEveryMs: 5 }, { enlistAfterSeconds: 0 }, state)), pendingRunner: decision! };
    const run = new SamplingRun(r.density, { ...cpu, threads: 1, transitionRunner: r.transitionRunner });
    run.restore(reevaluated(state, r.density));
    let last = performance.now();
    while (!run.done) {
      if (options.signal?.aborted) return { ...run.result(true), pendingRunner: decision! };
      if (run.waitsAsync) await run.stepAsync();
      else run.step();
      if (performance.now() - last >= (options.yieldEveryMs ?? 50)) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        last = performance.now();
      }
    }
    return { ...run.result(false), pendingRunner: decision! };
  }
}

// A decision made now (its time since the run's start), reported to the caller.
function decided(pending: PendingRunner, d: Omit<PendingRunnerDecision, "seconds">, startedAt: number): PendingRunnerDecision {
  const decision = { ...d, seconds: (performance.now() - startedAt) / 1000 };
  pending.onDecision?.(decision);
  return decision;
}

