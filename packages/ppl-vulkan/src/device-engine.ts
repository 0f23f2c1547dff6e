import { VulkanError, compileGlsl, limitsOf, type VulkanBuffer, type VulkanManager, type Sequence } from "@ppl/vulkan";
import { batchedEpilogue, batchedGradient, batchedGradientPlan } from "./batched-gradient.ts";
import { batchedLogpGrad } from "./batched-logp-grad.ts";
import type { DataPrecision } from "./data-precision.ts";
import {
  chooseControllerMode, CONTROLLER_BUFFERS, CONTROLLER_PROFILE_PARTS, controllerGroups, controllerProgram, controllerStateSizes, controllerTakesEpilogue, PROFILE_WORDS,
  workgroupController,
  type ControllerMode,
} from "./controller-program.ts";
import { readProfile, requireCycleCounter } from "./profile.ts";
import { newCounters, noteWait, type Engine, type EngineCounters, type GpuModel, type StateBuffers } from "./engine.ts";
import type { MetricForm } from "./metric-source.ts";
import { CONTROLLER_STATE_BUFFERS, inBindingOrder, STAT, STATE_BUFFERS, TRANSITION_STATS } from "./nuts-layout.ts";
import { chainProgress, powerOfTwoParts, stepsToSubmit } from "./steps-per-submit.ts";

/** The controller's array of the gradient's positions (nuts-layout.ts), through which its epilogue reads q. */
const EPILOGUE_Q = "bgq.v";

/** Most controller + gradient pairs recorded in one submission. */
const MAX_STEPS_PER_SUBMIT = 1024;

/**
 * Longest sequence recorded: a longer submission repeats it, one submission after the other (the
 * same dispatches in the same order, so the same draws). Recording costs the host about 10 µs a
 * dispatch (an H200's 1024-chain run: 0.1 s for the sequences of 1, 2, …, 1024 steps), a repeat one
 * wait for the device: at 128, hier's run (120k steps of 50 µs) waited 0.1–0.2 s longer on the H200.
 * At 256 a run records 511 steps instead of up to 2,047.
 */
const MAX_STEPS_PER_SEQUENCE = 256;

/** The device engine's options (prepareGpuNuts's, for the device shape). */
export interface DeviceEngineOptions {
  chains: number; maxDepth: number; dtype: "f32" | "f64"; controller?: ControllerMode; metric: MetricForm; dataPrecision: DataPrecision;
  /** Time the controller's parts with the device's cycle counter (Engine.profile); needs shaderSubgroupClock. */
  profile?: boolean;
}

/**
 * Shape 3: the batched gradient of all chains (multi-workgroup kernels) alternating with the NUTS
 * controller, S pairs per submission; the host resubmits until every chain has finished the block.
 */
export async function deviceEngine(manager: VulkanManager, model: GpuModel, state: StateBuffers, opts: DeviceEngineOptions): Promise<Engine> {
  const C = opts.chains;
  const profile = opts.profile ?? false;
  if (profile) requireCycleCounter(manager, "the controller");
  const D = model.q.size;
  const { gradient, built } = await buildKernels(manager, model, opts, profile);
  const { mode, source, controller } = built;
  const buffers = controllerBuffers(manager, C, D, opts, profile);
  // The functions the controller was built with take the program's buffers.
  const inController = built.epilogue ? gradient.epilogue(built.epilogue) : undefined;
  const bindings = [
    ...inBindingOrder(STATE_BUFFERS, state),
    ...inBindingOrder(CONTROLLER_STATE_BUFFERS, { vectors: buffers.vectors, reals: buffers.reals, ints: buffers.ints, done: buffers.done, gradientQ: gradient.q, gradientLp: gradient.lp, gradientG: gradient.grad }),
    ...(buffers.profiled ? [buffers.profiled] : []),
    ...(inController?.buffers ?? []),
  ];
  const gradientStep = inController?.step ?? gradient.step;
  const counters = newCounters();
  const sequences = new Map<number, Sequence>();
  const sequenceFor = (steps: number): Sequence => {
    let s = sequences.get(steps);
    if (!s) {
      const t0 = performance.now();
      s = manager.sequence();
      counters.sequences++;
      for (let i = 0; i < steps; i++) {
        s.dispatch(controller, bindings, controllerGroups(C, mode));
        for (const d of gradientStep) s.dispatch(d.algorithm, d.buffers, d.groups);
      }
      s.copy(buffers.done, buffers.progressBack, { byteLength: 4 }).copy(buffers.ints, buffers.progressBack, { byteLength: buffers.intsBytes, dstOffset: 4 });
      sequences.set(steps, s);
      counters.recordSeconds += (performance.now() - t0) / 1e3;
    }
    return s;
  };
  // Leapfrogs per transition of the slowest chain in the last block: the pace the next block is planned by.
  const pace = { perIteration: 4 };
  // The step-size searches' trial steps; safe between blocks: every chain is idle and the next
  // block starts without reading the gradient's buffers.
  const evaluation = batchedLogpGrad(manager, gradient, C, D, opts.dtype, counters);
  const profiled = buffers.profiled;
  return {
    source: `${source}
// ---- batched gradient
${gradient.source}`,
    counters,
    half: gradient.half,
    logpGrad: evaluation.logpGrad,
    run(k) {
      for (const submission of blockSubmissions(k, C, buffers, pace, counters)) {
        for (const part of powerOfTwoParts(submission.steps, MAX_STEPS_PER_SEQUENCE)) {
          const sequence = sequenceFor(part);
          const t0 = performance.now();
          sequence.submitSync();
          noteWait(counters, t0, part);
        }
        submission.done();
      }
    },
    async runAsync(k) {
      for (const submission of blockSubmissions(k, C, buffers, pace, counters)) {
        for (const part of powerOfTwoParts(submission.steps, MAX_STEPS_PER_SEQUENCE)) {
          const sequence = sequenceFor(part);
          const t0 = performance.now();
          await sequence.submit();
          noteWait(counters, t0, part);
        }
        submission.done();
      }
    },
    ...(profiled ? { profile: () => readProfile(new Uint32Array(profiled.read()), C, CONTROLLER_PROFILE_PARTS) } : {}),
    blockDone(st, k) {
      const slowest = slowestLeapfrogs(st, k, C);
      pace.perIteration = Math.max(1, slowest / k);
      counters.neededSteps += slowest + 1;
    },
    dispose() {
      sequences.forEach((s) => s.destroy());
      evaluation.dispose();
      controller.destroy();
      [buffers.vectors, buffers.reals, buffers.ints, buffers.done, buffers.progressBack].forEach((b) => b.destroy());
      profiled?.destroy();
      gradient.dispose();
    },
  };
}

/**
 * The batched gradient's kernels and the controller, compiled and built together (glslc runs
 * apart, the driver builds pipelines on worker threads); whichever fails, the other is released.
 */
async function buildKernels(manager: VulkanManager, model: GpuModel, opts: DeviceEngineOptions, profile: boolean) {
  const C = opts.chains;
  const D = model.q.size;
  const limits = limitsOf(manager.device);
  // Planned first, so that the controller can take the gradient's assembly in (its epilogue: a
  // dispatch fewer a step), and both still compile and build together.
  const plan = batchedGradientPlan(model, C, opts.dtype, limits, opts.dataPrecision);
  const epilogueBase = CONTROLLER_BUFFERS + (profile ? 1 : 0);
  const build = async (mode: ControllerMode) => {
    const inside = controllerTakesEpilogue(D, mode) ? batchedEpilogue(plan, epilogueBase, EPILOGUE_Q, C) : undefined;
    const source = controllerProgram(D, {
      chains: C, maxDepth: opts.maxDepth, dtype: opts.dtype, mode, metric: opts.metric, subgroups: limits.subgroupArithmetic, profile, epilogue: inside?.source,
    });
    const buffers = epilogueBase + (inside?.bindings.length ?? 0);
    return { mode, source, epilogue: inside, controller: await manager.algorithmAsync(await compileGlsl(source, { optimize: false }), { buffers }) };
  };
  const chosen = opts.controller ?? chooseControllerMode(D, opts.maxDepth, manager.device.type);
  const buildController = async () => {
    try {
      return await build(chosen);
    } catch (e) {
      // A driver may refuse the thread-per-chain controller's private arrays; the workgroup one keeps them small.
      if (opts.controller || chosen.kind !== "thread" || !(e instanceof VulkanError)) throw e;
      return await build(workgroupController(D));
    }
  };
  const [gradientResult, builtResult] = await Promise.allSettled([
    batchedGradient(manager, model, C, opts.dtype, limits, opts.dataPrecision, { plan }),
    buildController(),
  ]);
  if (gradientResult.status === "rejected" || builtResult.status === "rejected") {
    if (gradientResult.status === "fulfilled") gradientResult.value.dispose();
    if (builtResult.status === "fulfilled") builtResult.value.controller.destroy();
    throw gradientResult.status === "rejected" ? gradientResult.reason : (builtResult as PromiseRejectedResult).reason;
  }
  return { gradient: gradientResult.value, built: builtResult.value };
}

/** The controller's own buffers: the chains' tree state, the done counter, its host copy and (profiled) the cycle counts. */
interface ControllerBuffers {
  readonly vectors: VulkanBuffer;
  readonly reals: VulkanBuffer;
  readonly ints: VulkanBuffer;
  readonly done: VulkanBuffer;
  /** Every submission ends by copying the done counter and the chains' progress here. */
  readonly progressBack: VulkanBuffer;
  readonly intsBytes: number;
  readonly intsPerChain: number;
  readonly profiled: VulkanBuffer | undefined;
}

function controllerBuffers(manager: VulkanManager, C: number, D: number, opts: DeviceEngineOptions, profile: boolean): ControllerBuffers {
  const bytes = opts.dtype === "f64" ? 8 : 4;
  const sizes = controllerStateSizes(D, opts.maxDepth);
  const vectors = manager.buffer(C * sizes.vectors * bytes);
  const reals = manager.buffer(C * sizes.reals * bytes);
  const ints = manager.buffer(C * sizes.ints * 4);
  const done = manager.buffer(4);
  // Every submission ends by copying the done counter and the chains' progress into host memory,
  // read in place after it: a read through staging memory costs the host a submission and about
  // a millisecond each, twice per submission.
  const intsBytes = C * sizes.ints * 4;
  const progressBack = manager.readbackBuffer(4 + intsBytes);
  const profiled = profile ? manager.buffer(C * PROFILE_WORDS * 4) : undefined;
  profiled?.write(new Uint32Array(C * PROFILE_WORDS));
  return { vectors, reals, ints, done, progressBack, intsBytes, intsPerChain: sizes.ints, profiled };
}

/**
 * A block's submissions: each yields its step count, to be submitted and then marked done (which
 * reads the done counter and the chains' progress to plan the next one); the same plan for the
 * synchronous and the asynchronous run.
 */
function* blockSubmissions(
  k: number, C: number, buffers: ControllerBuffers, pace: { readonly perIteration: number }, counters: EngineCounters,
): Generator<{ readonly steps: number; done(): void }> {
  const ints = buffers.intsPerChain;
  buffers.ints.write(new Int32Array(C * ints));
  buffers.done.write(new Uint32Array(1));
  let progress = chainProgress(new Int32Array(C * ints), C);
  let finished = false;
  while (!finished) {
    const steps = stepsToSubmit(progress, k, pace.perIteration, MAX_STEPS_PER_SUBMIT);
    yield {
      steps,
      done() {
        counters.submits++;
        counters.steps += steps;
        const back = buffers.progressBack.read();
        if (new Uint32Array(back, 0, 1)[0]! >= C) finished = true;
        else progress = chainProgress(new Int32Array(back, 4, C * ints), C);
      },
    };
  }
}

/** The most leapfrogs any chain took over a block's k iterations. */
function slowestLeapfrogs(st: ArrayLike<number>, k: number, C: number): number {
  // Iterations outer, chains inner: one pass through the stats in memory order (a chain's
  // column strided by C · NSTATS cost a cache miss per element); the sums are integers, exact.
  const NSTATS = TRANSITION_STATS.length;
  const leaps = new Float64Array(C);
  for (let i = 0; i < k; i++) {
    const row = i * C * NSTATS + STAT.nLeapfrog;
    for (let c = 0; c < C; c++) leaps[c] = leaps[c]! + st[row + c * NSTATS]!;
  }
  let slowest = 0;
  for (let c = 0; c < C; c++) slowest = Math.max(slowest, leaps[c]!);
  return slowest;
}
