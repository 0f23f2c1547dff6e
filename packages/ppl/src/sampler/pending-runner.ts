/**
 * A run that starts on the CPU while its transition runner (a GPU kernel) is still being prepared,
 * and moves to the runner once it is ready and measures faster. A driver builds a fused kernel in
 * a second or more on a machine that has not built it before, and a small posterior samples on the
 * CPU in less: waiting for the kernel made such runs slower than the CPU backend alone.
 *
 * The CPU samples the chains meanwhile, over `threads` worker threads where the density can be
 * shared with them (the calling thread starts alone and hands every chain to the workers once
 * they are ready, keeping its own time for the runner's preparation; threads/pool.ts), on the
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
import type { BatchedDensity } from "./density.ts";
import { ProgressPace } from "./pace.ts";
import { cpuIsFaster, DEFAULT_MARGIN, detached, reevaluated, secondHalfSecondsPerGradient } from "./fallback.ts";
import { hostStepsOf, resolveSettings, SamplingRun, type RunState, type SampleOptions, type SampleResult, type TransitionRunnerFactory } from "./run.ts";

/** A transition runner that is ready to run, with the density its run uses. */
export interface ReadyRunner {
  readonly transitionRunner: TransitionRunnerFactory;
  /** The density of the run on the runner (a GPU's host density: initialization, step-size searches). */
  readonly density: BatchedDensity;
  /** Most iterations the runner computes in one call (its block; default 100): the trial runs whole blocks. */
  readonly blockIterations?: number;
}

/** A runner still being prepared; the run starts on the CPU (SampleOptions.pendingRunner). */
export interface PendingRunner {
  /**
   * Resolves once the runner is ready; a rejection leaves the run on the CPU (the decision says
   * why). A function starts the preparation only once the CPU's work left is projected past
   * `startAfterSeconds`: a run shorter than that could not gain from a runner, and its preparation
   * (a compiler, a driver) would take the CPU's time.
   */
  readonly ready: Promise<ReadyRunner> | (() => Promise<ReadyRunner>);
  /**
   * With a function `ready`: the CPU's projected seconds left (at its pace over the later half of
   * its time, pace.ts ProgressPace) beyond which it is called; nor is a ready runner tried with less
   * left (default 0.5: twice the trial's own budget).
   */
  readonly startAfterSeconds?: number;
  /** The CPU must take a gradient this many times faster, spread over its threads, to be kept (default DEFAULT_MARGIN). */
  readonly margin?: number;
  /** Seconds of the CPU's iterations to time before deciding (default 0.1; the second half counts). */
  readonly probeSeconds?: number;
  /** The runner's trial ends after a block that takes this long (default 0.02 s), or after its 64-iteration block. */
  readonly trialBlockSeconds?: number;
  /** Nor does the trial go on once it has taken this long (default 0.25 s). */
  readonly trialSeconds?: number;
  /** Keep the CPU no earlier than this iteration (default: after warmup's first metric update, 100 of Stan's 1000); a runner that wins earlier is taken then. */
  readonly earliest?: number;
  /** Called once, when the run decides or ends without deciding. */
  readonly onDecision?: (decision: PendingRunnerDecision) => void;
}

/** What a run with a pending runner measured, and where it went. */
export interface PendingRunnerDecision {
  /**
   * "measured": both were timed; "failed": the runner's preparation failed; "ended": the run ended
   * before the runner was ready; "short": the run was too short to start preparing it.
   */
  readonly reason: "measured" | "failed" | "ended" | "short";
  /** Iterations done on the CPU before the decision. */
  readonly iteration: number;
  /** The runner's trial: seconds per gradient of one chain (its time over the gradients of all chains); NaN when not tried. */
  readonly runnerSecondsPerGradient: number;
  /** The CPU's seconds per gradient of one chain, spread over its threads; NaN when not timed. */
  readonly cpuSecondsPerGradient: number;
  /** CPU threads the estimate assumes. */
  readonly threads: number;
  /** Whether the chains moved to the runner. */
  readonly moved: boolean;
  /** With reason "failed": the preparation's error. */
  readonly error?: string;
  /** With reason "measured": seconds the runner's trials took (part of the result's timing). */
  readonly trialSeconds?: number;
  /** Seconds from the run's start to the decision (with "measured": to the decision's trial's end). */
  readonly seconds: number;
}

// A state whose run took `seconds` more, counted to warmup or sampling as its iteration is.
function withTime(state: RunState, seconds: number, warmup: number): RunState {
  const ms = seconds * 1000;
  return state.iteration < warmup ? { ...state, warmupMs: state.warmupMs + ms } : { ...state, samplingMs: state.samplingMs + ms };
}

/** Iterations of a block-wise runner's block starting at t (as a GPU runner splits a run): warmup blocks end where the host acts. */
export function runnerBlock(t: number, warmup: number, total: number, hostSteps: readonly number[], block: number): number {
  if (t < warmup) {
    const next = hostSteps.find((h) => h >= t) ?? warmup - 1;
    return Math.min(block, next + 1 - t);
  }
  return Math.min(block, total - t);
}

/** The iteration after warmup's first metric update (the first of the host's steps before its last), or 0 without one. */
export function firstMetricUpdate(hostSteps: readonly number[], warmup: number): number {
  const updates = hostSteps.filter((h) => h < warmup - 1);
  return updates.length > 0 ? Math.min(...updates) + 1 : 0;
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
  const pool = threads > 1 && shared ? await import("./threads/pool.ts") : null;
  // A runner already prepared (or failed) is seen before the first iteration.
  await null;
  // Started now, so that the chains find threads ready.
  pool?.prestartSamplerThreads(threads - 1);
  if (pool !== null && Math.min(threads, resolveSettings(options).chains) > 1) {
    return samplePendingThreaded(density, options, pool, () => ready, () => failure, starter, startedAt);
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
  const times: number[] = [];
  const gradients: number[] = [];
  let timed = 0;
  let decision: PendingRunnerDecision | undefined;
  const decide = (d: Omit<PendingRunnerDecision, "seconds">): void => void (decision = decided(pending, d, startedAt));
  const result = (aborted: boolean): SampleResult => {
    if (!decision) decide({ reason: starter.started ? "ended" : "short", iteration: run.iterationsDone, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false });
    return { ...run.result(aborted), pendingRunner: decision! };
  };
  let onRunner = false;
  let triedEarly = false;
  let left = NaN;
  const progress = new ProgressPace();
  let trialSeconds = 0;
  let last = performance.now();
  while (!run.done) {
    if (signal?.aborted) return result(true);
    if (run.waitsAsync) await run.stepAsync();
    else {
      const before = run.evaluationsDone;
      const t0 = performance.now();
      run.step();
      if (!onRunner && decision === undefined) {
        const dt = (performance.now() - t0) / 1000;
        times.push(dt);
        gradients.push(run.evaluationsDone - before);
        timed += dt;
        // The CPU's seconds left at its pace (the later half of its time), spread over its threads.
        progress.add(timed, run.iterationsDone);
        const perIteration = progress.secondsPerIteration(timed, run.iterationsDone);
        left = Number.isNaN(perIteration) ? NaN : (perIteration * (s.warmup + s.draws - run.iterationsDone)) / chainThreads;
        starter.consider(left);
      }
    }
    if (decision === undefined && !run.done) {
      if (failure !== null) {
        decide({ reason: "failed", iteration: run.iterationsDone, runnerSecondsPerGradient: NaN, cpuSecondsPerGradient: NaN, threads: chainThreads, moved: false, error: failure });
      } else if (ready !== null && (run.iterationsDone >= earliest || !triedEarly) && timed >= (pending.probeSeconds ?? 0.1) && times.length >= 2 && starter.worthIt(left)) {
        const r: ReadyRunner = ready;
        const cpuPerGradient = secondHalfSecondsPerGradient(times, gradients) / chainThreads;
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
        } else if (pool !== null && chainThreads > 1) {
          const rest = await pool.sampleThreads(density, cpu, {}, state);
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

// The runner's trial's blocks: 1, 4, 16 then 64 iterations at most, until one takes
// trialBlockSeconds. A slow device's first block of a hundred early-warmup iterations (trees of a
// thousand leapfrogs) took lavapipe 13 s, where the CPU ran the whole posterior in 2; a fast one
// needs a longer block for its fixed cost a block (a submission, a read back) to stop counting.
const TRIAL_BLOCKS = [1, 4, 16, 64] as const;

/** One block of a runner's trial: its seconds, and the gradients and iterations it ran (all chains). */
export interface TrialBlock {
  readonly seconds: number;
  readonly gradients: number;
  readonly iterations: number;
}

/**
 * Seconds per gradient of one chain that a run in blocks of `runBlock` iterations would take, from
 * a trial's blocks (the first, which pays the kernel's first dispatch, left out by the caller). A
 * block costs a fixed time (its upload, submission and read back: milliseconds) plus its
 * gradients' time, so the last two blocks give both, and the run's longer blocks share the fixed
 * time over more gradients: on the H200 a 16-iteration block of low_dim_gauss_mix took 52 µs a
 * gradient, the whole run 9. With one block, or blocks that do not tell the two apart, the last
 * block's mean.
 */
export function runSecondsPerGradient(blocks: readonly TrialBlock[], runBlock: number): number {
  const last = blocks[blocks.length - 1];
  if (!last || !(last.gradients > 0)) return Infinity;
  const mean = last.seconds / last.gradients;
  const prev = blocks[blocks.length - 2];
  if (!prev || !(prev.gradients > 0) || last.gradients < 1.5 * prev.gradients || !(last.seconds > prev.seconds)) return mean;
  const perGradient = (last.seconds - prev.seconds) / (last.gradients - prev.gradients);
  const fixed = Math.max(0, prev.seconds - perGradient * prev.gradients);
  const runGradients = (last.gradients / last.iterations) * Math.max(runBlock, last.iterations);
  return Math.min(mean, perGradient + fixed / runGradients);
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
  density: BatchedDensity, options: SampleOptions & { yieldEveryMs?: number }, pool: typeof import("./threads/pool.ts"),
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
    const outcome = await pool.sampleThreadsPausable(density, { ...cpu, yieldEveryMs: 5 }, {
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
    if (decision !== undefined) return { ...(await pool.sampleThreads(density, { ...cpu, yieldEveryMs: 5 }, { enlistAfterSeconds: 0 }, outcome.state)), pendingRunner: decision };
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
    if (!moved) return { ...(await pool.sampleThreads(density, { ...cpu, yieldEveryMs: 5 }, { enlistAfterSeconds: 0 }, state)), pendingRunner: decision! };
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

/** The runner's preparation, started at once or (a function `ready`) once the run is long enough. */
interface LazyStart {
  readonly started: boolean;
  /** Starts the preparation if the CPU's projected seconds left pass the threshold (NaN: not known yet). */
  consider(secondsLeft: number): void;
  /** Whether a run with this many of the CPU's seconds left is worth a trial and a move (more than the threshold; NaN, not known yet: no). */
  worthIt(secondsLeft: number): boolean;
}

function lazyStart(pending: PendingRunner, onReady: (r: ReadyRunner) => void, onFailure: (message: string) => void): LazyStart {
  let started = false;
  const go = (): void => {
    started = true;
    let promise: Promise<ReadyRunner>;
    try {
      promise = typeof pending.ready === "function" ? pending.ready() : pending.ready;
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise.then(onReady, (e: unknown) => onFailure(e instanceof Error ? e.message : String(e)));
  };
  if (typeof pending.ready !== "function") go();
  const threshold = pending.startAfterSeconds ?? 0.5;
  return {
    get started() {
      return started;
    },
    consider(secondsLeft) {
      if (!started && (threshold <= 0 || secondsLeft > threshold)) go();
    },
    worthIt(secondsLeft) {
      return threshold <= 0 || secondsLeft > threshold;
    },
  };
}
