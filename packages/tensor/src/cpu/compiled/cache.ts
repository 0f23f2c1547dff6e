import type { Node } from "../../ir/node.ts";
import { fmt } from "../../ir/shape.ts";
import { buildProgram, type Program } from "./program.ts";
import { lowerLpdfSums } from "../../rewrite/lower-lpdf-sum.ts";
import { renderProgram } from "./render.ts";
import { lowerShortProducts } from "./short-products.ts";

/**
 * Programs by graph: the key is the output nodes' hashes (which cover the whole graph, constants
 * included) plus the input signature, so the same model traced twice compiles once. Bounded, least
 * recently used first out, because a program holds its graph alive.
 */
const MAX_ENTRIES = 256;
const programs = new Map<string, Program>();

/** The cache key of a graph: output hashes and the names, dtypes and shapes of its inputs. */
export function graphKey(outputs: readonly Node[], inputs: readonly (Node | undefined)[] = []): string {
  const sig = inputs.map((n) => (n ? `${n.attrs.name ?? n.attrs.index}:${n.dtype}${fmt(n.shape)}` : "-")).join(";");
  return `${outputs.map((o) => o.hash).join(",")}|${sig}`;
}

/** The compiled program for `outputs`, from the cache when this graph was compiled before. */
export function cachedProgram(outputs: readonly Node[]): Program {
  const key = graphKey(outputs);
  let p = programs.get(key);
  if (p) {
    programs.delete(key); // re-insert: most recently used last
  } else {
    // lpdf_sum has no loop of its own: its expansion fuses into the loops around it; so do short
    // matrix-vector products (short-products.ts).
    p = buildProgram(renderProgram(lowerShortProducts(lowerLpdfSums(outputs))));
    if (programs.size >= MAX_ENTRIES) programs.delete(programs.keys().next().value!);
  }
  programs.set(key, p);
  return p;
}

/** Number of cached programs (for tests). */
export function cacheSize(): number {
  return programs.size;
}

/** Forget every cached program. */
export function clearProgramCache(): void {
  programs.clear();
}
