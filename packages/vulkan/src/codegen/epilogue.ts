import type { Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { glslType, literal } from "./glsl.ts";
import { flatten, unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { isAlwaysMaterialized } from "./schedule.ts";
import { Scope } from "./scope.ts";
import { bufferDeclaration, type Binding, type KernelPlan, type ScratchBuffer } from "./shader.ts";
import type { SlicedValue } from "./kernel-plan.ts";
import { sliceSumRead } from "./slice-read.ts";
import type { Storage } from "./storage.ts";

// The kernel of a program's outputs, when all it does is compute them element by element from values
// earlier kernels stored (a batched gradient's assembly: the sums' partials added up, a prior's
// terms added), can instead run inside whatever kernel reads those outputs next: each output as a
// GLSL function of its element's index. The NUTS controller of the device shape reads lp and the
// gradient this way, so that a step is one dispatch fewer (a dispatch and its barrier cost 2–3 µs).

/** The GLSL of a program's outputs as functions, and the buffers they read. */
export interface EpilogueSource {
  /**
   * Buffer declarations (bindings `base`, `base` + 1, …; arrays b0, b1, …), `void ppl_prepare(int c)`
   * and `T ppl_out<j>(int u)`: output j's element u (row-major). Call ppl_prepare(c) before the
   * outputs' elements of chain c (with `chains`; every thread, in uniform control flow, where
   * PPL_CHAIN_PER_SUBGROUP says a subgroup's threads share one chain).
   */
  readonly source: string;
  /** What binding `base` + i holds. */
  readonly bindings: readonly Binding[];
}

/** Values a chain's prepare may add up from partials (each a private variable of every thread). */
const PREPARED_VALUES = 64;

/**
 * Render outputs as functions in place of `kernel`, the program's kernel of exactly the outputs
 * (ProgramPlan.outputKernel; undefined where none), where it computes each elementwise from stored
 * values (else undefined: the program keeps that kernel). `named` gives the array
 * (`bgq.v`) through which the including shader already reads a stored node, instead of a binding
 * of its own: two bindings of one buffer in a shader would break their `restrict`. With `chains`
 * (the outputs' leading axis, each chain's elements a function of that chain's values alone), the
 * sums held as partials whose leading axis is the chain (inline-slices.ts) are added up once a
 * chain by ppl_prepare, not at every element that reads them: a hierarchical gradient's five
 * scalars of 49 partials each, read by each of 2005 elements.
 */
export function renderEpilogue(
  outputs: readonly Node[], kernel: KernelPlan | undefined, factory: KernelFactory, base: number, named: (n: Node) => string | undefined, chains?: number,
): EpilogueSource | undefined {
  if (!kernel) return undefined;
  if (!outputs.every((o) => o.size > 0 && o.inputs.length > 0 && !isAlwaysMaterialized(o.op) && o.op !== "scan" && o.op !== "tuple_get")) return undefined;
  const sh = factory.shader();
  const prepared: { node: Node; slices: SlicedValue; array: string }[] = [];
  // The chain's index in the output being rendered (its first index), where it has one: a sum is
  // prepared only where it is read at exactly that index, which is then c (a sum of shape [K, C]
  // read transposed is not, whatever its sizes).
  let chainIndex: string | undefined;
  const preparedOf = (n: Node, idx: readonly string[]) => {
    const v = chains === undefined ? undefined : factory.sliced?.get(n);
    if (!v || chainIndex === undefined || n.shape[0] !== chains || idx[0] !== chainIndex) return undefined;
    const known = prepared.find((p) => p.node === n);
    if (known) return known;
    if (prepared.reduce((acc, p) => acc + p.node.size / chains, n.size / chains) > PREPARED_VALUES) return undefined;
    return prepared[prepared.push({ node: n, slices: v, array: `ppl_prepared${prepared.length}` }) - 1];
  };
  const storage: Storage = {
    read: (n, idx, scope) => {
      const p = preparedOf(n, idx);
      if (p) return `${p.array}[${flatten(n.shape.slice(1), idx.slice(1))}]`;
      const array = factory.isStored(n) ? named(n) : undefined;
      return array === undefined ? sh.storage.read(n, idx, scope) : `${array}[${flatten(n.shape, idx)}]`;
    },
    write: sh.storage.write,
  };
  const r = new ExprRenderer(storage, sh.r);
  const functions = outputs.flatMap((o, j) => {
    const scope = new Scope(undefined, "  ");
    const idx = unflatten(o.shape, "u");
    chainIndex = o.shape[0] === chains ? idx[0] : undefined;
    const value = r.compute(o, idx, scope);
    return [`${glslType(o.dtype)} ppl_out${j}(int u) {`, ...scope.lines, `  return ${value};`, "}"];
  });
  // The including shader declares no 16-bit storage.
  if (sh.halfBindings().size > 0) return undefined;
  const prepare = renderPrepare(prepared, chains ?? 1, (b) => sh.bind(b, "read"));
  const declarations = sh.bindings.map((b, i) => bufferDeclaration(b, i, sh.accessOf(b), false, base + i));
  return { source: [...declarations, ...prepare, ...functions].join("\n"), bindings: sh.bindings };
}

// Each prepared sum's values for chain c, as private arrays: where a subgroup's threads share the
// chain, each lane adds every subgroup-size-th partial and subgroupAdd combines them (two loads a
// lane for 49 partials); else each thread adds all of them (sliceSumRead).
function renderPrepare(prepared: readonly { node: Node; slices: SlicedValue; array: string }[], chains: number, bind: (b: ScratchBuffer) => string): string[] {
  const globals = prepared.map((p) => `${glslType(p.node.dtype)} ${p.array}[${p.node.size / chains}];`);
  const subgroup = new Scope(undefined, "  ");
  const thread = new Scope(undefined, "  ");
  prepared.forEach((p, k) => {
    const per = p.node.size / chains;
    const T = glslType(p.node.dtype);
    for (let j = 0; j < per; j++) {
      const at = `c * ${per} + ${j}`;
      subgroup.emit(`{ ${T} acc = ${literal(0, p.node.dtype)}; for (int q = int(gl_SubgroupInvocationID); q < ${p.slices.slices}; q += int(gl_SubgroupSize)) acc += ${bind(p.slices.scratch)}[q * ${p.node.size} + ${at}]; ${p.array}[${j}] = subgroupAdd(acc); }`);
      const idx = [`c`, ...unflatten(p.node.shape.slice(1), `${j}`)];
      thread.emit(`${p.array}[${j}] = ${sliceSumRead(bind, p.node, p.slices, idx, thread, `ppl_pr${k}_${j}`)};`);
    }
  });
  return [...globals, "void ppl_prepare(int c) {", "#ifdef PPL_CHAIN_PER_SUBGROUP", ...subgroup.lines, "#else", ...thread.lines, "#endif", "}"];
}
