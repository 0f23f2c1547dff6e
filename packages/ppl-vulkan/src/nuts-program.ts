import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gradientGraph } from "@ppl/ppl";
import type { Node } from "@ppl/tensor";
import type { RenderLimits } from "@ppl/vulkan";
import { kernelPrelude } from "@ppl/vulkan/internals";
import { renderLogpFunction, THREAD_LOCAL_SIZE, type LogpMode } from "./logp-function.ts";
import { halfDataLeaves, type DataPrecision, type DataValues } from "./data-precision.ts";
import { bufferDeclarations, layoutDefines, STATE_BUFFERS, stateDeclarations } from "./nuts-layout.ts";
import { metricSource, type MetricForm } from "./metric-source.ts";
import { SUBGROUP_EXTENSIONS } from "./workgroup-sum.ts";
import { profileSource } from "./profile.ts";

const PACKED_SHADER_DIR = fileURLToPath(new URL("../shaders/nuts/", import.meta.url));

/**
 * Where the hand-written NUTS GLSL lives: PPL_SHADERS_DIR overrides it for bundled programs; a
 * packed package carries its own copy (scripts/pack-shaders.mjs); else the repository's shaders/.
 */
export const SHADER_DIR = process.env.PPL_SHADERS_DIR
  ? `${process.env.PPL_SHADERS_DIR}/nuts/`
  : existsSync(PACKED_SHADER_DIR) ? PACKED_SHADER_DIR : fileURLToPath(new URL("../../../shaders/nuts/", import.meta.url));

/** Buffers of the NUTS kernel before the scratch buffer (bound next) and the model's data buffers. */
export const NUTS_FIXED_BUFFERS = STATE_BUFFERS.length;

/** The GLSL of a thread-per-chain NUTS transition for one model, and the data leaves it binds. */
export interface NutsProgram {
  readonly source: string;
  readonly data: readonly Node[];
  readonly localSize: number;
  /** Execution shape: thread per chain, or workgroup per chain. */
  readonly shape: "thread" | "workgroup";
  /** Scratch elements per chain (workgroup shape): bound at NUTS_FIXED_BUFFERS, data after it. */
  readonly scratch: number;
  /** Data leaves bound as float16_t buffers (dataPrecision "f16"): upload them with halfDataBytes. */
  readonly half: ReadonlySet<Node>;
}

/** Shape and precision of a NUTS kernel. */
export interface NutsProgramOptions {
  readonly chains: number;
  readonly maxDepth: number;
  readonly dtype: "f32" | "f64";
  /** Thread per chain (small models, many chains) or workgroup per chain (more data per gradient). */
  readonly shape?: "thread" | "workgroup";
  /** Threads per workgroup (a power of two) in the workgroup shape. */
  readonly workgroup?: number;
  /** Diagonal (default) or dense metric. */
  readonly metric?: MetricForm;
  /**
   * The device's facts the workgroup shape uses: shared memory for the intermediates, subgroup
   * arithmetic for the sums. Without them: global scratch and shared-memory trees (any device).
   */
  readonly limits?: Pick<RenderLimits, "sharedMemoryBytes" | "subgroupArithmetic">;
  /** "f16": large float data stored in 16 bits (the device needs 16-bit storage); default exact. */
  readonly dataPrecision?: DataPrecision;
  /** The data's values, which "f16" reads to keep integers exact (a leaf not bound here stays exact). */
  readonly dataBindings?: DataValues;
  /**
   * Add the cycles of each part of every leapfrog (FUSED_PROFILE_PARTS) to a buffer bound after the
   * data, profileWords(FUSED_PROFILE_PARTS) a chain (profile.ts); the device needs shaderSubgroupClock.
   */
  readonly profile?: boolean;
}

/**
 * The parts of a leapfrog that a profiling build of the fused transition times, in slot order:
 * its log density and gradient first (a call is a leapfrog), then end_leaf's parts; the
 * transition's begin, the chain's first loads and the draw's write fall to the leapfrog after them.
 */
export const FUSED_PROFILE_PARTS = ["logp", "drift", "kick", "energy", "sample", "checkpoints", "checks", "merge", "transition", "load", "save"] as const;

/**
 * Build the fused NUTS kernel of a model: the log density and its gradient (one chain, over the
 * unconstrained vector `q`, in the dtype: ppl's gradientGraph) are rendered as a GLSL function, which the hand-written NUTS loop (shaders/nuts/transition.glsl) calls
 * at every leapfrog step — the whole transition is one dispatch.
 */
export function nutsProgram(logDensity: Node, q: Node, opts: NutsProgramOptions): NutsProgram {
  const graph = gradientGraph({ logDensity, q }, { dtype: opts.dtype });
  const dim = q.size;
  const shape = opts.shape ?? "thread";
  const workgroup = opts.workgroup ?? 256;
  const subgroups = shape === "workgroup" && (opts.limits?.subgroupArithmetic ?? false);
  const mode: LogpMode = shape === "thread"
    ? { kind: "thread", chains: opts.chains, sharedBytes: opts.limits?.sharedMemoryBytes ?? 0 }
    : { kind: "workgroup", workgroup, subgroups, sharedBytes: opts.limits?.sharedMemoryBytes ?? 0 };
  const half = halfDataLeaves([graph.lp, graph.grad], opts.dataPrecision ?? "exact", opts.dataBindings ?? {});
  const logp = renderLogpFunction(graph.lp, graph.grad, graph.q, NUTS_FIXED_BUFFERS, opts.dtype, mode, half);
  const localSize = shape === "thread" ? logp.localSize ?? THREAD_LOCAL_SIZE : workgroup;
  // Extensions come before any code: after the header's #version line.
  const [version, ...header] = nutsHeader(dim, opts, shape === "thread", localSize, subgroups);
  const profile = opts.profile ? profileSource(FUSED_PROFILE_PARTS, NUTS_FIXED_BUFFERS + 1 + logp.data.length) : undefined;
  const source = [
    version!,
    ...logp.extensions.map((e) => `#extension ${e} : require`),
    ...(profile ? [profile.extension] : []),
    ...header,
    ...(profile?.lines ?? []),
    logp.source,
    ...metricSource(opts.metric ?? "diag", shape === "thread", dim),
    ...stateDeclarations(),
    ...bufferDeclarations(STATE_BUFFERS),
    readFileSync(`${SHADER_DIR}common.glsl`, "utf8"),
    readFileSync(`${SHADER_DIR}transition.glsl`, "utf8"),
  ].join("\n");
  return { source, data: logp.data, localSize, shape, scratch: logp.scratch, half };
}

/**
 * The first lines of every NUTS shader: types, sizes, which invocation is which chain (a thread,
 * or a workgroup whose first thread writes the scalars), the math prelude, and the loop over the
 * state elements a thread owns (WG and LID come from the including program); with `subgroups`,
 * the subgroup extensions the workgroup sums use.
 */
export function nutsHeader(
  dim: number,
  opts: { readonly chains: number; readonly maxDepth: number; readonly dtype: "f32" | "f64" },
  threadPerChain: boolean,
  localSize: number,
  subgroups = false,
): string[] {
  return [
    "#version 450",
    ...(subgroups ? SUBGROUP_EXTENSIONS : []),
    `#define NREAL ${opts.dtype === "f64" ? "double" : "float"}`,
    `#define SFX(name) name##_${opts.dtype}`,
    `#define D ${dim}`,
    `#define MAXD ${opts.maxDepth}`,
    `#define CHAINS ${opts.chains}`,
    threadPerChain ? "#define CHAIN_ID gl_GlobalInvocationID.x" : "#define CHAIN_ID gl_WorkGroupID.x",
    threadPerChain ? "#define LEADER true" : "#define LEADER (gl_LocalInvocationID.x == 0u)",
    `layout(local_size_x = ${localSize}) in;`,
    ...layoutDefines(),
    kernelPrelude(new Set([opts.dtype])),
    "#define OWN ((D + WG - 1) / WG)",
    "#define FOR_OWNED(s, i) for (int s = 0, i = int(LID); s < OWN && i < D; s++, i += WG)",
  ];
}
