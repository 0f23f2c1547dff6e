import { GraphError, type Node } from "@ppl/tensor";
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

/** GLSL reading a node's own storage inside its kernel, bypassing the value cache (the values change as the kernel's loops run). */
export function selfRead(node: Node, storage: Storage, idx: readonly string[], scope: Scope): string {
  const e = storage.read(node, idx, scope);
  if (e === undefined) throw new GraphError(`codegen: ${node.op} has no storage`);
  return e;
}
