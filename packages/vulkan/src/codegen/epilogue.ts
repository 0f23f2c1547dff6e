import type { Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { glslType } from "./glsl.ts";
import { flatten, unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { isAlwaysMaterialized } from "./schedule.ts";
import { Scope } from "./scope.ts";
import { bufferDeclaration, type Binding, type KernelPlan } from "./shader.ts";
import type { Storage } from "./storage.ts";

// A program's last kernel, when all it does is compute the outputs element by element from values
// earlier kernels stored (a batched gradient's assembly: the sums' partials added up, a prior's
// terms added), can instead run inside whatever kernel reads those outputs next: each output as a
// GLSL function of its element's index. The NUTS controller of the device shape reads lp and the
// gradient this way, so that a step is one dispatch fewer (a dispatch and its barrier cost 2–3 µs).

/** The GLSL of a program's outputs as functions, and the buffers they read. */
export interface EpilogueSource {
  /** Buffer declarations (bindings `base`, `base` + 1, …; arrays b0, b1, …) and `T ppl_out<j>(int u)`: output j's element u (row-major). */
  readonly source: string;
  /** What binding `base` + i holds. */
  readonly bindings: readonly Binding[];
}

/**
 * Render outputs as functions where a program's last kernel computes exactly them, each elementwise
 * from stored values (else undefined: the program keeps that kernel). `named` gives the array
 * (`bgq.v`) through which the including shader already reads a stored node, instead of a binding
 * of its own: two bindings of one buffer in a shader would break their `restrict`.
 */
export function renderEpilogue(
  outputs: readonly Node[], last: KernelPlan | undefined, factory: KernelFactory, base: number, named: (n: Node) => string | undefined,
): EpilogueSource | undefined {
  if (!last || last.nodes.length !== outputs.length || !outputs.every((o) => last.nodes.includes(o))) return undefined;
  if (!outputs.every((o) => o.size > 0 && o.inputs.length > 0 && !isAlwaysMaterialized(o.op) && o.op !== "scan" && o.op !== "tuple_get")) return undefined;
  const sh = factory.shader();
  const storage: Storage = {
    read: (n, idx, scope) => {
      const array = factory.isStored(n) ? named(n) : undefined;
      return array === undefined ? sh.storage.read(n, idx, scope) : `${array}[${flatten(n.shape, idx)}]`;
    },
    write: sh.storage.write,
  };
  const r = new ExprRenderer(storage, sh.r);
  const functions = outputs.flatMap((o, j) => {
    const scope = new Scope(undefined, "  ");
    const value = r.compute(o, unflatten(o.shape, "u"), scope);
    return [`${glslType(o.dtype)} ppl_out${j}(int u) {`, ...scope.lines, `  return ${value};`, "}"];
  });
  // The including shader declares no 16-bit storage.
  if (sh.halfBindings().size > 0) return undefined;
  const declarations = sh.bindings.map((b, i) => bufferDeclaration(b, i, sh.accessOf(b), false, base + i));
  return { source: [...declarations, ...functions].join("\n"), bindings: sh.bindings };
}
