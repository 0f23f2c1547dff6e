import type { Node } from "../../ir/node.ts";
import type { Layout } from "./layout.ts";

/** The loop nests the scheduler (schedule.ts) groups a graph into, and what the renderer reads of them. */

/** One level of a loop nest: the shape it iterates over and the nodes computed at each index. */
export interface Scope {
  readonly shape: readonly number[];
  /** The enclosing scope (undefined for a kernel's main scope); it and `kernel` change when loops merge (mergeLoops, siblings.ts). */
  parent: Scope | undefined;
  kernel: LoopKernel;
  /** Nodes computed here, in graph order. */
  readonly nodes: Node[];
}

/** A fused loop nest. */
export interface LoopKernel {
  readonly kind: "loop";
  readonly root: Node;
  main: Scope;
  /**
   * A reduction over leading axes: the loop runs over its input in row-major order and
   * accumulates into the output buffer (a kept-outer loop would stride through memory).
   */
  readonly scatter: Node | undefined;
}

/** An op with its own loop code. */
export interface OpKernel {
  readonly kind: "op";
  readonly root: Node;
}

export type Kernel = LoopKernel | OpKernel;

export interface Schedule {
  /** Every node of the graph, inputs first. */
  readonly order: readonly Node[];
  /** Kernels in execution order. */
  readonly kernels: readonly Kernel[];
  readonly scopeOf: ReadonlyMap<Node, Scope>;
  /** Reduction → the scope of its inner loop (sibling reductions share one, see siblings.ts). */
  readonly innerOf: ReadonlyMap<Node, Scope>;
  /** Nodes some kernel stores to a buffer. */
  readonly written: ReadonlySet<Node>;
  /** The layout other kernels read a node through. */
  layout(n: Node): Layout;
}
