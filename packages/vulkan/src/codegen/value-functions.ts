import type { Node } from "@ppl/tensor";
import { bufferType, glslType } from "./glsl.ts";
import { Scope } from "./scope.ts";
import type { Binding, ShaderBuilder } from "./shader.ts";

// A program's nodes as GLSL functions of their index, for another shader to compute them where it
// reads them instead of reading them from their buffers. The NUTS controller of the device shape
// computes a chain's lp and gradient this way from the batched gradient's sums: the assembly
// kernel that would write them (elementwise, a dispatch of its own, about 3 µs on an H100 between
// the gradient's sums and the controller) is left out of the step.

/** A function `T name(int i0, int i1, …)` returning `node` at that index. */
export interface ValueFunction {
  readonly name: string;
  readonly node: Node;
}

/** The functions' GLSL (buffer declarations, then the functions) and the buffers it declares, in binding order. */
export interface ValueFunctions {
  readonly source: string;
  readonly bindings: readonly Binding[];
}

/**
 * Render `fns` with `shader` (a program's ShaderBuilder: its stored nodes are read from their
 * buffers, everything between them and the functions' nodes is computed inline, and each node
 * itself is computed from its inputs). The buffers are declared from binding `firstBinding` on,
 * except those `arrays` names: the including shader already declares them under those GLSL arrays
 * (`bgq.v`). Undefined where a node cannot be computed inline (a reduction, a scan: a kernel of
 * its own) or reads data stored in 16 bits.
 */
export function renderValueFunctions(
  fns: readonly ValueFunction[], shader: ShaderBuilder, firstBinding: number, arrays: ReadonlyMap<Binding, string> = new Map(),
): ValueFunctions | undefined {
  const bodies: string[] = [];
  for (const { name, node } of fns) {
    const idx = node.shape.map((_, a) => `i${a}`);
    const scope = new Scope(undefined, "  ");
    let value: string;
    try {
      value = shader.r.compute(node, idx, scope);
    } catch {
      return undefined;
    }
    bodies.push([`${glslType(node.dtype)} ${name}(${idx.map((i) => `int ${i}`).join(", ")}) {`, ...scope.lines, `  return ${value};`, "}"].join("\n"));
  }
  if (shader.halfBindings().size > 0) return undefined;
  const own = shader.bindings.filter((b) => !arrays.has(b));
  const glslArray = (b: Binding) => arrays.get(b) ?? `ppl_vb${own.indexOf(b)}.v`;
  // The builder named binding k `bk.v`; its functions read each buffer under its final name.
  const source = bodies.join("\n").replace(/\bb(\d+)\.v\b/g, (_, k: string) => glslArray(shader.bindings[Number(k)]!));
  const decls = own.map((b, j) => `layout(std430, set = 0, binding = ${firstBinding + j}) readonly buffer PplValues${j} { ${bufferType(b.dtype)} v[]; } ppl_vb${j};`);
  return { source: [...decls, source].join("\n"), bindings: own };
}
