import { grad, interpret, type Node, type TensorValue } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/internals";
import { supportChecksOf } from "../distributions/helpers.ts";
import type { DeclaredTerm } from "./builder.ts";
import type { CompiledModel } from "./compile.ts";
import { entryName } from "./stan-names.ts";

/** The first term of a log density that is not finite at a point, and what in it left its support. */
export interface NonFiniteTerm {
  /** The term as declared: its label and the site whose stack names the model file's line. */
  readonly term: DeclaredTerm;
  /** The term's value there: −∞, +∞ or NaN. */
  readonly value: number;
  /** The first distribution argument outside its support, as Stan says it: "normal: sigma is -9.5, but must be positive". */
  readonly argument: string | undefined;
  /** Where the term is finite but its gradient is not: the parameter coordinate ("sigma", "theta (unconstrained coordinate 3)") and the gradient's value there. */
  readonly gradient?: { readonly wrt: string; readonly value: number };
}

/**
 * The first term of `compiled`'s log density (in declaration order) that is −∞, +∞ or NaN at the
 * unconstrained point `q`, with the first argument of a distribution in it that lies outside its
 * support there; where every term is finite, the first whose gradient is not, and the coordinate;
 * undefined when all are finite (a device's rounding).
 */
export function nonFiniteTerm(compiled: CompiledModel, q: ArrayLike<number>): NonFiniteTerm | undefined {
  const bindings: Record<string, TensorValue> = { ...compiled.dataBindings };
  compiled.recorded.params.forEach((p, i) => {
    const info = compiled.paramInfo[i]!;
    const slice = Float64Array.from({ length: info.unconstrainedSize }, (_, j) => q[info.offset + j]!);
    bindings[String(p.leaf.attrs.name)] = { dtype: "f64", shape: p.leaf.shape, data: slice };
  });
  for (const term of compiled.recorded.terms) {
    const value = interpret([term.value], bindings)[0]!.data[0]!;
    if (Number.isFinite(value)) continue;
    return { term, value, argument: argumentOutOfSupport(term.value, bindings) };
  }
  const leaves = compiled.recorded.params.map((p) => p.leaf);
  for (const term of compiled.recorded.terms) {
    const grads = interpret(grad(term.value, leaves), bindings);
    for (let i = 0; i < grads.length; i++) {
      const g = grads[i]!.data;
      const bad = g.findIndex((x) => !Number.isFinite(x));
      if (bad < 0) continue;
      const p = compiled.recorded.params[i]!;
      const wrt = g.length === 1 ? p.name : `${p.name} (unconstrained coordinate ${bad + 1})`;
      const value = interpret([term.value], bindings)[0]!.data[0]!;
      return { term, value, argument: argumentOutOfSupport(term.value, bindings), gradient: { wrt, value: g[bad]! } };
    }
  }
  return undefined;
}

// The first node-valued distribution argument in the term whose value breaks the support it was
// given for (checkParam records them), as "dist: name is v, but must be what".
function argumentOutOfSupport(value: Node, bindings: Readonly<Record<string, TensorValue>>): string | undefined {
  for (const n of toposort([value])) {
    const checks = supportChecksOf(n);
    if (checks.length === 0) continue;
    const v = interpret([n], bindings)[0]!.data;
    for (const c of checks) {
      const bad = v.findIndex((x) => !(c.ok(x) && !Number.isNaN(x)));
      if (bad < 0) continue;
      const which = n.size === 1 ? c.name : entryName(c.name, n.shape, bad);
      return `${c.dist}: ${which} is ${v[bad]}, but must be ${c.what}`;
    }
  }
  return undefined;
}
