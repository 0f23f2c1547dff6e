import type { Node } from "@ppl/tensor";
import type { Scope } from "./scope.ts";

/**
 * Where the values of materialized nodes live while a shader runs: global storage buffers
 * (one thread per output element) or local arrays (a whole graph run by one thread).
 * The renderer asks the storage to read a node at a multi-index; nodes it does not hold are
 * computed inline.
 */
export interface Storage {
  /** GLSL expression reading `node` at `idx`, or undefined when the node is not stored here. */
  read(node: Node, idx: readonly string[], scope: Scope): string | undefined;
  /** GLSL statement writing `value` to `node` at flat offset `flat`. */
  write(node: Node, flat: string, value: string): string;
}
