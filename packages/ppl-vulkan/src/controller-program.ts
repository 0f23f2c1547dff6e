import { readFileSync } from "node:fs";
import { nutsHeader, SHADER_DIR } from "./nuts-program.ts";
import { metricSource, type MetricForm } from "./metric-source.ts";
import {
  bufferDeclarations, CONTROLLER_INTS, CONTROLLER_REALS, CONTROLLER_STATE_BUFFERS, controllerScalarSource, controllerVectorSlots, STATE_BUFFERS,
  stateDeclarations,
} from "./nuts-layout.ts";
import { threadSumSource, workgroupSumSource } from "./workgroup-sum.ts";
import { profileSource, profileWords } from "./profile.ts";

/** Buffers of the controller kernel (shaders/nuts/controller.glsl): the state buffers, then the controller's own. */
export const CONTROLLER_BUFFERS = STATE_BUFFERS.length + CONTROLLER_STATE_BUFFERS.length;

/** Vector, real and int state slots per chain, as controller.glsl lays them out. */
export function controllerStateSizes(dim: number, maxDepth: number): { vectors: number; reals: number; ints: number } {
  return { vectors: controllerVectorSlots(maxDepth) * dim, reals: CONTROLLER_REALS.length, ints: CONTROLLER_INTS.length };
}

/**
 * How the controller maps chains onto threads: a thread per chain while the state vectors are
 * short (no barriers, every chain of the batch at once), else a workgroup per chain whose threads
 * share each vector.
 */
export type ControllerMode =
  | { kind: "thread"; group?: number }
  /** `epilogue` overrides controllerTakesEpilogue's rule (for measuring it). */
  | { kind: "workgroup"; workgroup: number; epilogue?: boolean };

/**
 * On a GPU, a workgroup per chain: on the H200, 1024 chains of a D = 10 regression took 40 µs a
 * device step with a workgroup of 32 per chain against 60 µs with a thread per chain (commit
 * after 4131401, bench/RESULTS.md), whose checkpoint tables spill to local memory. On a CPU
 * implementation of Vulkan (lavapipe), where a barrier costs more than a thread's own work, a
 * thread per chain while one thread's private state is small: its checkpoint tables hold
 * 7·maxDepth·dim values (on the H200 a controller with D = 11 and max depth 10 compiled while
 * D = 13 with depth 15 and D = 101 with depth 10 failed pipeline creation). A workgroup covers the
 * vectors, a power of two in [32, 256].
 */
export function chooseControllerMode(dim: number, maxDepth: number, deviceType: string): ControllerMode {
  if (deviceType === "cpu" && dim <= 32 && dim * maxDepth <= 160) return { kind: "thread" };
  return workgroupController(dim);
}

/** The workgroup-per-chain controller for a dimension: threads enough to cover the vectors. */
export function workgroupController(dim: number): ControllerMode {
  return { kind: "workgroup", workgroup: Math.min(256, Math.max(32, 2 ** Math.ceil(Math.log2(dim)))) };
}

/**
 * Threads per workgroup of the thread-per-chain controller, unless the mode says otherwise
 * (smaller groups spread few chains over more of the GPU's multiprocessors).
 */
const THREAD_GROUP = 64;

function threadGroup(mode: ControllerMode): number {
  return mode.kind === "thread" ? (mode.group ?? THREAD_GROUP) : 1;
}

/**
 * Whether the controller computes the batched gradient's assembly itself (its epilogue) rather than
 * read it: where each thread computes one element of its chain's gradient, or a thread per chain
 * (a CPU driver, where a dispatch costs far more than a thread's work). On an H100 the epilogue
 * saved N=100k (D = 101, 128 threads) 2.3 µs a step and 1024 chains (D = 11) 1.1–2.1 µs, and cost hier
 * (D = 2005, 8 elements a thread on 256 threads, where the kernel spread them over 127
 * workgroups) 2 µs (bench/RESULTS.md).
 */
export function controllerTakesEpilogue(dim: number, mode: ControllerMode): boolean {
  return mode.kind === "thread" || (mode.epilogue ?? dim <= mode.workgroup);
}

/** Workgroups to dispatch for C chains. */
export function controllerGroups(chains: number, mode: ControllerMode): number {
  return mode.kind === "thread" ? Math.ceil(chains / threadGroup(mode)) : chains;
}

/**
 * The parts of a controller call that a profiling build times (controller.glsl's PROF_MARK), in
 * slot order: what each call spends on them, in the leader's cycles.
 */
export const CONTROLLER_PROFILE_PARTS = ["load", "kick", "energy", "sample", "checkpoints", "checks", "merge", "transition", "drift", "save"] as const;

/** Words of the profile buffer per chain: each part's cycles (two words, low and high) and calls. */
export const PROFILE_WORDS = profileWords(CONTROLLER_PROFILE_PARTS);

/**
 * The GLSL of the NUTS controller for the whole-device shape: one workgroup per chain runs the
 * transition's bookkeeping between two batched gradient evaluations. `profile` (a device with
 * shaderSubgroupClock) adds the cycles each part of a call takes to buffer CONTROLLER_BUFFERS,
 * PROFILE_WORDS a chain (profile.ts reads them).
 */
export function controllerProgram(
  dim: number,
  opts: {
    chains: number; maxDepth: number; dtype: "f32" | "f64"; mode: ControllerMode; metric?: MetricForm; subgroups?: boolean; profile?: boolean;
    /**
     * The batched gradient's kernel of lp and the gradient as functions (BatchedGradient.epilogue, its buffers bound
     * after the controller's and the profile's): each call computes lp and the gradient it reads
     * instead of reading that kernel's results, a dispatch fewer a step.
     */
    epilogue?: string;
  },
): string {
  const thread = opts.mode.kind === "thread";
  const W = opts.mode.kind === "thread" ? 1 : opts.mode.workgroup;
  // A workgroup per chain adds its dot products within subgroups first where the device can.
  const subgroups = !thread && (opts.subgroups ?? false);
  const header = nutsHeader(dim, opts, thread, thread ? threadGroup(opts.mode) : W, subgroups);
  const profile = opts.profile ? profileSource(CONTROLLER_PROFILE_PARTS, CONTROLLER_BUFFERS) : undefined;
  return [
    header[0]!,
    ...(profile ? [profile.extension] : []),
    ...header.slice(1),
    ...(profile?.lines ?? []),
    `#define WG ${W}`,
    thread ? "#define LID 0u" : "#define LID gl_LocalInvocationID.x",
    // Slot j, element i of chain c's vector state: chain-minor for threads, chain-major for workgroups.
    thread ? "#define VS(c, j, i) (((j) * D + (i)) * CHAINS + int(c))" : "#define VS(c, j, i) ((int(c) * NV + (j)) * D + (i))",
    ...(thread ? threadSumSource() : workgroupSumSource(opts.dtype, W, subgroups)),
    ...metricSource(opts.metric ?? "diag", thread, dim),
    ...controllerScalarSource(),
    ...stateDeclarations("buffer"),
    // All buffers before common.glsl, which reads the checkpoint tables from buffer 8 in place.
    ...bufferDeclarations(STATE_BUFFERS),
    ...bufferDeclarations(CONTROLLER_STATE_BUFFERS, STATE_BUFFERS.length),
    // A workgroup per chain whose subgroups add: the epilogue's prepare adds a chain's partials across a subgroup's lanes.
    ...(opts.epilogue ? ["#define PPL_EPILOGUE", ...(subgroups ? ["#define PPL_CHAIN_PER_SUBGROUP"] : []), opts.epilogue] : []),
    readFileSync(`${SHADER_DIR}common.glsl`, "utf8"),
    readFileSync(`${SHADER_DIR}controller.glsl`, "utf8"),
  ].join("\n");
}
