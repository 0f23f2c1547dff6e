/**
 * The one description of what the NUTS kernels and the host exchange through buffers: the
 * per-transition statistics, the step-size buffer's layout (step sizes, dual-averaging states, run
 * settings), the controller's scalar state, and the Philox purpose codes. The GLSL side gets it as
 * #defines (layoutDefines, emitted ahead of shaders/nuts/*.glsl) and generated save/load code; the
 * host reads the same lists, so an offset is written down once.
 */
import { Purpose } from "@ppl/ppl/internals";

/** One storage buffer of the NUTS kernels: the host's name for it, and its GLSL block, instance, element type and access. */
export interface NutsBuffer {
  readonly field: string;
  readonly block: string;
  readonly instance: string;
  readonly element: "NREAL" | "uint" | "int";
  readonly access?: "readonly" | "writeonly";
}

/**
 * The sampler's buffers 0–7, shared by every NUTS kernel, in binding order: 0 q[C·D], 1 grad[C·D],
 * 2 lp[C], 3 step sizes, dual-averaging states and run settings (stepSizeLayout), 4 the inverse
 * metric (metric-buffer.ts), 5 control {seed lo, seed hi, first iteration, first chain id,
 * iterations, adapt}, 6 stats[K·C·NSTATS], 7 draws[K·C·D].
 */
export const STATE_BUFFERS = [
  { field: "q", block: "StateQ", instance: "bq", element: "NREAL" },
  { field: "g", block: "StateG", instance: "bg", element: "NREAL" },
  { field: "lp", block: "StateLp", instance: "blp", element: "NREAL" },
  { field: "eps", block: "StepSize", instance: "beps", element: "NREAL" },
  { field: "minv", block: "InvMetric", instance: "bminv", element: "NREAL", access: "readonly" },
  { field: "ctrl", block: "Control", instance: "bctrl", element: "uint", access: "readonly" },
  { field: "stats", block: "Stats", instance: "bstats", element: "NREAL", access: "writeonly" },
  { field: "draws", block: "Draws", instance: "bdraws", element: "NREAL", access: "writeonly" },
] as const satisfies readonly NutsBuffer[];

/** One of the state buffers 0–7, by the host's name. */
export type StateBufferName = (typeof STATE_BUFFERS)[number]["field"];

/**
 * The controller's buffers after the state buffers (8–14): 8 vector state [C·NV·D] (the kept
 * vectors, then the checkpoint tables by level), 9 real state [C·NRS], 10 int state [C·NIS], 11 the
 * done counter (chains that finished the block), 12 the batched gradient's input positions [C·D],
 * 13 its log densities [C], 14 its gradients [C·D].
 */
export const CONTROLLER_STATE_BUFFERS = [
  { field: "vectors", block: "VectorState", instance: "bvs", element: "NREAL" },
  { field: "reals", block: "RealState", instance: "brs", element: "NREAL" },
  { field: "ints", block: "IntState", instance: "bis", element: "int" },
  { field: "done", block: "Done", instance: "bdone", element: "uint" },
  // Read too where the controller computes the kernel of lp and the gradient itself (its epilogue reads q).
  { field: "gradientQ", block: "GradientQ", instance: "bgq", element: "NREAL" },
  { field: "gradientLp", block: "GradientLp", instance: "bglp", element: "NREAL", access: "readonly" },
  { field: "gradientG", block: "GradientG", instance: "bgg", element: "NREAL", access: "readonly" },
] as const satisfies readonly NutsBuffer[];

/** One of the controller's buffers 8–14, by the host's name. */
export type ControllerBufferName = (typeof CONTROLLER_STATE_BUFFERS)[number]["field"];

/** GLSL declarations of buffers bound from `first` on, in the lists' order (the kernels name them by instance). */
export function bufferDeclarations(buffers: readonly NutsBuffer[], first = 0): string[] {
  return buffers.map((b, i) => `layout(std430, set = 0, binding = ${first + i}) ${b.access ? `${b.access} ` : ""}buffer ${b.block} { ${b.element} v[]; } ${b.instance};`);
}

/** The buffers of a list in binding order, from a record by the host's names. */
export function inBindingOrder<F extends string, T>(buffers: readonly { readonly field: F }[], byName: Readonly<Record<F, T>>): T[] {
  return buffers.map((b) => byName[b.field]);
}

/** The statistics a kernel writes per transition, in slot order: buffer 6 holds [K·C·TRANSITION_STATS.length]. */
export const TRANSITION_STATS = ["acceptStat", "treeDepth", "nLeapfrog", "divergent", "energy", "lp"] as const;

/** One of the transition statistics. */
export type TransitionStat = (typeof TRANSITION_STATS)[number];

/** Offset of each statistic within a transition's slot. */
export const STAT = Object.fromEntries(TRANSITION_STATS.map((s, i) => [s, i])) as Readonly<Record<TransitionStat, number>>;

/**
 * What the kernels write for each statistic: a GLSL expression of common.glsl's transition state
 * at the end of a transition (acceptStat is write_result's local). A statistic added to the list
 * above without one here does not compile.
 */
const STAT_VALUES: Readonly<Record<TransitionStat, string>> = {
  acceptStat: "acceptStat",
  treeDepth: "NREAL(depth)",
  nLeapfrog: "NREAL(nLeap)",
  divergent: "(divergent ? NREAL(1) : NREAL(0))",
  energy: "sampleEnergy",
  lp: "sampleLp",
};

/** The run's settings at the end of buffer 3, in order: dual averaging's δ, γ, κ, t0, then the divergence threshold. */
export const RUN_SETTINGS = ["delta", "gamma", "kappa", "t0", "maxDeltaH"] as const;

/** One of the run settings of buffer 3. */
export type RunSetting = (typeof RUN_SETTINGS)[number];

/** Dual-averaging state per chain, in order (buffer 3, after the step sizes). */
export const DUAL_AVERAGING_STATE = ["mu", "counter", "sBar", "xBar"] as const;

/**
 * Where buffer 3 keeps what the kernels read and adapt: the C step sizes, then each chain's
 * dual-averaging state (μ, counter, s̄, x̄), then the run settings.
 */
export function stepSizeLayout(chains: number): { state(chain: number): number; setting(name: RunSetting): number; settings: number; length: number } {
  const settings = chains * (1 + DUAL_AVERAGING_STATE.length);
  return {
    state: (c) => chains + DUAL_AVERAGING_STATE.length * c,
    setting: (name) => settings + RUN_SETTINGS.indexOf(name),
    settings,
    length: settings + RUN_SETTINGS.length,
  };
}

/** The controller's real state per chain between calls (buffer 9), each a GLSL global of common.glsl. */
export const CONTROLLER_REALS = ["H0", "sampleLp", "sampleEnergy", "propLp", "propEnergy", "logSumW", "sumMetro", "logSumWSub"] as const;

/**
 * The controller's int state per chain (buffer 10). phase, k and leaf are the controller's own
 * locals; the others are common.glsl's globals (forward and divergent as 0/1).
 */
export const CONTROLLER_INTS = ["phase", "k", "nLeap", "depth", "leaf", "forward", "divergent"] as const;

/** One of the controller's int state slots. */
export type ControllerInt = (typeof CONTROLLER_INTS)[number];

/** Slot of each int state value. */
export const INT_SLOT = Object.fromEntries(CONTROLLER_INTS.map((s, i) => [s, i])) as Readonly<Record<ControllerInt, number>>;

/**
 * The vectors (D elements each) a transition keeps between the controller's calls, as slots of the
 * vector state (buffer 8), each a GLSL array of common.glsl. g and sharp are not kept: the next call
 * gets g from the gradient kernels and recomputes sharp. The groups say when the controller moves
 * them: a call that ends one leaf and starts the next (most calls) reads and writes the "leaf"
 * vectors; the subtree's "proposal" and its "first" leaf are written by some leaves and read only
 * where the subtree merges; the "merge" ones change only where a subtree merges or a transition
 * begins. Each group is loaded where it is read and stored where it was written, no more.
 */
export const CONTROLLER_VECTORS = [
  ["q", "leaf"], ["p", "leaf"], ["propQ", "proposal"], ["propG", "proposal"],
  ["t_rho", "leaf"], ["t_firstP", "first"], ["t_firstSharp", "first"], ["t_prevP", "leaf"], ["t_prevSharp", "leaf"],
  ["qPlus", "merge"], ["pPlus", "merge"], ["gPlus", "merge"], ["sharpPlus", "merge"],
  ["qMinus", "merge"], ["pMinus", "merge"], ["gMinus", "merge"], ["sharpMinus", "merge"],
  ["rho", "merge"], ["sampleQ", "merge"], ["sampleG", "merge"],
] as const;

/** When the controller moves a kept vector (CONTROLLER_VECTORS). */
export type VectorGroup = (typeof CONTROLLER_VECTORS)[number][1];

/**
 * The subtree termination checkpoints, one vector per tree level each (common.glsl's [MAXD][OWN]
 * arrays). They are scratch of the current subtree: written at its leaves before they are read, dead
 * once it ends. Leaf n reads and writes only the levels below leafLevels(n), so a leaf call moves those.
 */
export const CHECKPOINT_TABLES = ["t_startSharp", "t_startPrefix", "t_midPrefix", "t_midP", "t_midSharp", "t_midPrevP", "t_midPrevSharp"] as const;

/** Vector slots per chain of the controller's vector state, for a maximum tree depth. */
export function controllerVectorSlots(maxDepth: number): number {
  return CONTROLLER_VECTORS.length + CHECKPOINT_TABLES.length * maxDepth;
}

const BOOL_INTS: ReadonlySet<string> = new Set(["forward", "divergent"]);
const GLOBAL_INTS = CONTROLLER_INTS.filter((s) => s !== "phase" && s !== "k" && s !== "leaf");

const upper = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();

/** The layout as GLSL #defines, for every NUTS shader (read by shaders/nuts/common.glsl and controller.glsl). */
export function layoutDefines(): string[] {
  const ds = DUAL_AVERAGING_STATE.length;
  return [
    `#define NSTATS ${TRANSITION_STATS.length}u`,
    ...TRANSITION_STATS.map((s, i) => `#define STAT_${upper(s)} ${i}u`),
    // write_result's stores of a transition's statistics into its slot of buffer 6.
    `#define WRITE_STATS(slot) { ${TRANSITION_STATS.map((s) => `bstats.v[(slot) * NSTATS + STAT_${upper(s)}] = ${STAT_VALUES[s]};`).join(" ")} }`,
    `#define DA_STATE(c) (CHAINS + ${ds} * int(c))`,
    `#define SETTINGS_BASE (${1 + ds} * CHAINS)`,
    ...RUN_SETTINGS.map((s, i) => `#define SETTING_${upper(s)} (SETTINGS_BASE + ${i})`),
    `#define PURPOSE_MOMENTUM ${Purpose.Momentum}u`,
    `#define PURPOSE_TREE ${Purpose.Tree}u`,
    `#define PURPOSE_LEAF ${Purpose.Leaf}u`,
    `#define NRS ${CONTROLLER_REALS.length}`,
    `#define NIS ${CONTROLLER_INTS.length}`,
    ...CONTROLLER_INTS.map((s, i) => `#define IS_${upper(s)} ${i}`),
  ];
}

/**
 * Where the checkpoint tables live: private arrays of the invocation (the fused transition, which
 * keeps a whole transition in one dispatch), or the controller's vector state itself (buffer 8),
 * read and written in place: as private arrays indexed by the tree depth at run time they cannot
 * be registers, and on the H200 they spilled 3–4.5 KB per thread to local memory, copied in and out
 * at every call.
 */
export type CheckpointStorage = "private" | "buffer";

/**
 * GLSL declarations of the transition's state that the lists above describe (common.glsl's globals:
 * the kept vectors, the checkpoint tables, the kept reals and ints), for every NUTS shader, right
 * before common.glsl (they need OWN, so the including program's WG), and CP(table, level, s, i),
 * common.glsl's access to a checkpoint table.
 */
export function stateDeclarations(tables: CheckpointStorage = "private"): string[] {
  const ints = GLOBAL_INTS.filter((s) => !BOOL_INTS.has(s));
  const bools = GLOBAL_INTS.filter((s) => BOOL_INTS.has(s));
  const nv = CONTROLLER_VECTORS.length, nt = CHECKPOINT_TABLES.length;
  const tableLines = tables === "private"
    ? [`NREAL ${CHECKPOINT_TABLES.map((t) => `${t}[MAXD][OWN]`).join(", ")};`, "#define CP(t, k, s, i) t[k][s]"]
    : [
        // Level k of table j is vector slot nv + nt·k + j of the chain (as controllerVectorSlots counts).
        ...CHECKPOINT_TABLES.map((t, j) => `#define CP_SLOT_${t} ${nv + j}`),
        `#define CP(t, k, s, i) bvs.v[VS(CHAIN_ID, CP_SLOT_##t + ${nt} * (k), i)]`,
      ];
  return [
    "// The transition's state, declared from packages/ppl-vulkan/src/nuts-layout.ts.",
    `NREAL ${CONTROLLER_VECTORS.map(([v]) => `${v}[OWN]`).join(", ")};`,
    ...tableLines,
    `NREAL ${CONTROLLER_REALS.join(", ")};`,
    `int ${ints.join(", ")};`,
    `bool ${bools.join(", ")};`,
  ];
}

/**
 * GLSL macros that move the controller's state between common.glsl's globals and buffers 8–10:
 * the vectors of chain c (slot j, element i at VS(c, j, i); the checkpoint tables stay in the
 * buffer, see CheckpointStorage), the reals (base rb) and the ints (base ib), generated from the
 * lists above; macros, so that they can be defined ahead of the buffers and globals they name.
 */
export function controllerScalarSource(): string[] {
  const loadReals = CONTROLLER_REALS.map((s, i) => `${s} = brs.v[rb + ${i}];`);
  const saveReals = CONTROLLER_REALS.map((s, i) => `brs.v[rb + ${i}] = ${s};`);
  const loadInts = GLOBAL_INTS.map((s) => (BOOL_INTS.has(s) ? `${s} = bis.v[ib + IS_${upper(s)}] != 0;` : `${s} = bis.v[ib + IS_${upper(s)}];`));
  const saveInts = GLOBAL_INTS.map((s) => (BOOL_INTS.has(s) ? `bis.v[ib + IS_${upper(s)}] = ${s} ? 1 : 0;` : `bis.v[ib + IS_${upper(s)}] = ${s};`));
  const nv = CONTROLLER_VECTORS.length, nt = CHECKPOINT_TABLES.length;
  const slots = (group: VectorGroup) => CONTROLLER_VECTORS.map(([v, g], j) => [v, g, j] as const).filter(([, g]) => g === group);
  const save = (group: VectorGroup) => slots(group).map(([v, , j]) => `bvs.v[VS(c, ${j}, i)] = ${v}[s];`).join(" ");
  const load = (group: VectorGroup) => slots(group).map(([v, , j]) => `${v}[s] = bvs.v[VS(c, ${j}, i)];`).join(" ");
  const groups = [...new Set(CONTROLLER_VECTORS.map(([, g]) => g))];
  return [
    `#define NV (${nv} + ${nt} * MAXD)`,
    ...groups.flatMap((g) => [
      `#define SAVE_${g.toUpperCase()}_STATE(c) { FOR_OWNED(s, i) { ${save(g)} } }`,
      `#define LOAD_${g.toUpperCase()}_STATE(c) { FOR_OWNED(s, i) { ${load(g)} } }`,
    ]),
    `#define LOAD_SCALARS(rb, ib) { ${[...loadReals, ...loadInts].join(" ")} }`,
    `#define SAVE_SCALARS(rb, ib) { ${[...saveReals, ...saveInts].join(" ")} }`,
  ];
}
