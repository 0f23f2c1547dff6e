import type { DType, Node } from "@ppl/tensor";

// What a kernel of a program is, as data: its buffers, its shader's parts and what merging keeps
// of them. The renderers (shader.ts, the strategies) build these; the planner and the backend read them.

/** A device buffer that holds no node: partial results passed from one kernel of a node to the next. */
export interface ScratchBuffer {
  readonly kind: "scratch";
  readonly dtype: DType;
  /** Elements. */
  readonly size: number;
  /** What it holds, for the generated source. */
  readonly label: string;
  /**
   * Read in the same dispatch by other workgroups than the ones that wrote it (a reduction's last
   * workgroup merging the others' partials): declared `coherent`, and it starts at zero.
   */
  readonly shared?: boolean;
}

/** What a kernel binds: a stored node's buffer or a scratch buffer. */
export type Binding = Node | ScratchBuffer;

/**
 * One compute shader of a program: the node it (partly) computes and the buffers it binds, in
 * binding order. Its buffers are declared `restrict`: bind a different buffer to each binding.
 */
export interface KernelPlan {
  /** The node it computes (the first, for a merged kernel). */
  readonly node: Node;
  /** Every node it computes: one, or those of the kernels merged into it. */
  readonly nodes: readonly Node[];
  readonly source: string;
  readonly units: number;
  readonly localSize: number;
  readonly bindings: readonly Binding[];
  /** Workgroup counts [x, y]. */
  readonly groups: readonly [number, number];
  /** The renderer's pieces, for merging with independent kernels (merge-kernels.ts); absent once merged. */
  readonly merge?: MergePieces;
  /** Bindings declared float16_t (data leaves stored in half precision); absent when none. */
  readonly half?: ReadonlySet<Binding>;
}

/** True when a binding is a scratch buffer rather than a node's storage. */
export function isScratch(b: Binding): b is ScratchBuffer {
  return (b as ScratchBuffer).kind === "scratch";
}

/** How a shader uses a binding; a buffer only read is declared readonly, one only written writeonly. */
export type Access = "read" | "write" | "readwrite";

/** The parts of a shader a kernel renderer decides; `assemble` adds the header, buffers and prelude. */
export interface ShaderParts {
  readonly node: Node;
  readonly localSize: number;
  /** Workgroups to run; `main` sees the linear workgroup index as `int gid` (groups past the count return at once). */
  readonly workgroups: number;
  /** Threads doing useful work, for stats and for dropping empty kernels. */
  readonly units: number;
  readonly extensions?: readonly string[];
  readonly shared?: readonly string[];
  readonly main: readonly string[];
  /** What the kernel computes, for the comment at the top. */
  readonly title?: string;
}

/** What assemble keeps of a kernel so that it can be merged with others later (merge-kernels.ts). */
export interface MergePieces {
  readonly parts: ShaderParts;
  /** How the kernel uses each of its bindings, in binding order. */
  readonly access: readonly Access[];
  readonly dtypes: ReadonlySet<DType>;
}

/** A node held as `slices` partial sums in a scratch buffer (slice p of element e at p·size + e). */
export interface SlicedValue {
  readonly scratch: ScratchBuffer;
  readonly slices: number;
}
