import type { Node } from "@ppl/tensor";

// Keyed by the log density node itself, so that a model whose logDensity is replaced (cast to f32,
// data rounded, rebuilt) finds no fused graph and is differentiated as it is, never through a stale one.
const fused = new WeakMap<Node, Node>();

/** Record that `fusedLogDensity` is `logDensity` with its long observations summed by fused nodes. */
export function registerFusedDensity(logDensity: Node, fusedLogDensity: Node): void {
  if (fusedLogDensity !== logDensity) fused.set(logDensity, fusedLogDensity);
}

/** The fused form of a log density compileModel made, or undefined (no long observation to fuse, or a graph compileModel did not make). */
export function fusedDensityOf(logDensity: Node): Node | undefined {
  return fused.get(logDensity);
}
