import { type Node } from "@ppl/tensor";
import { isFloat, sizeOf } from "@ppl/tensor/ir";
import { glslType } from "./glsl.ts";
import { flatten, unflatten } from "./index-math.ts";
import type { Scope } from "./scope.ts";
import { selfRead } from "./storage.ts";
import type { UnitWriter } from "./unit-writer.ts";

/**
 * argsort: one line per unit, heapsorted in place in the output (the permutation itself), so
 * no local array bounds the line's length and the work is O(n log n). Heapsort is not stable,
 * but the order compares (value, index) pairs with NaN last (cpu/sort.ts), a total order, so the
 * permutation is the stable sort's, as on the CPU.
 */
export function argsortUnits(node: Node): UnitWriter {
  const axis = node.attrs.axis!;
  const n = node.shape[axis]!;
  const X = node.inputs[0]!;
  const lineShape = node.shape.map((d, a) => (a === axis ? 1 : d));
  const T = glslType(X.dtype);
  const half = Math.floor(n / 2);
  return {
    units: sizeOf(lineShape),
    emit(u, scope, { r, storage }) {
      const base = unflatten(lineShape, u);
      const at = (t: string) => base.map((b, a) => (a === axis ? t : b));
      const slot = (t: string) => flatten(node.shape, at(t));
      const perm = (t: string, sc: Scope) => selfRead(node, storage, at(t), sc);
      // i before j: x_i < x_j, ties by index, NaN after every number.
      const before = (i: string, j: string, sc: Scope) => {
        const [a, b] = [r.fresh("a"), r.fresh("b")];
        sc.emit(`${T} ${a} = ${r.value(X, at(i), sc)};`);
        sc.emit(`${T} ${b} = ${r.value(X, at(j), sc)};`);
        const lt = `(${a} < ${b} || (${a} == ${b} && ${i} < ${j}))`;
        return isFloat(X.dtype) ? `(ppl_isnan(${a}) ? (ppl_isnan(${b}) && ${i} < ${j}) : (ppl_isnan(${b}) || ${lt}))` : lt;
      };

      const t = r.fresh("t");
      const init = scope.child();
      init.emit(storage.write(node, slot(t), t));
      scope.block(`for (int ${t} = 0; ${t} < ${n}; ${t}++)`, init);

      // Steps 0 … half−1 build the max-heap (sifting down from half−1 to 0); the remaining n−1 steps
      // each move the heap's top (the greatest) to the end of the shrinking heap and sift down again.
      const [it, root, end] = [r.fresh("it"), r.fresh("root"), r.fresh("end")];
      const step = scope.child();
      step.emit(`int ${root} = ${half - 1} - ${it};`);
      step.emit(`int ${end} = ${n};`);
      const extract = step.child();
      extract.emit(`${end} = ${n - 1} - (${it} - ${half});`);
      extract.emit(`${root} = 0;`);
      const top = r.fresh("p");
      extract.emit(`int ${top} = ${perm("0", extract)};`);
      extract.emit(storage.write(node, slot("0"), perm(end, extract)));
      extract.emit(storage.write(node, slot(end), top));
      step.block(`if (${it} >= ${half})`, extract);

      const sift = step.child();
      const child = r.fresh("c");
      sift.emit(`int ${child} = 2 * ${root} + 1;`);
      sift.emit(`if (${child} >= ${end}) break;`);
      const [pc, pr] = [r.fresh("pc"), r.fresh("pr")];
      sift.emit(`int ${pc} = ${perm(child, sift)};`);
      const right = sift.child();
      const pn = r.fresh("pn");
      right.emit(`int ${pn} = ${perm(`${child} + 1`, right)};`);
      right.emit(`if (${before(pc, pn, right)}) { ${child} += 1; ${pc} = ${pn}; }`);
      sift.block(`if (${child} + 1 < ${end})`, right);
      sift.emit(`int ${pr} = ${perm(root, sift)};`);
      sift.emit(`if (!${before(pr, pc, sift)}) break;`);
      sift.emit(storage.write(node, slot(root), pc));
      sift.emit(storage.write(node, slot(child), pr));
      sift.emit(`${root} = ${child};`);
      step.block("while (true)", sift);

      scope.block(`for (int ${it} = 0; ${it} < ${half + n - 1}; ${it}++)`, step);
    },
  };
}
