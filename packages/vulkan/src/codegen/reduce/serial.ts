import { type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { unflatten } from "../index-math.ts";
import type { UnitWriter } from "../unit-writer.ts";
import { reduceMonoid } from "./monoid.ts";

/** One thread per output element folding all of its reduced elements in order: short reductions, and inside single-thread programs. */
export function reduceUnits(node: Node): UnitWriter {
  const x = node.inputs[0]!;
  const axes = node.attrs.axes!;
  const redShape = axes.map((a) => x.shape[a]!);
  const count = sizeOf(redShape);
  const monoid = reduceMonoid(node);
  return {
    units: node.size,
    emit(u, scope, { r, storage }) {
      const outIdx = unflatten(node.shape, u);
      const s = monoid.identity.map((init) => {
        const name = r.fresh("acc");
        scope.emit(`${monoid.type} ${name} = ${init};`);
        return name;
      });
      const k = r.fresh("k");
      const body = scope.loop([k]);
      const redIdx = unflatten(redShape, k);
      const idx: string[] = [];
      let ko = 0, oo = 0;
      for (let a = 0; a < x.rank; a++) idx.push(axes.includes(a) ? redIdx[ko++]! : outIdx[oo++]!);
      const v = r.value(x, idx, body);
      for (const line of monoid.fold(s, v)) body.emit(line);
      scope.block(`for (int ${k} = 0; ${k} < ${count}; ${k}++)`, body);
      scope.emit(storage.write(node, u, monoid.finish(s)));
    },
  };
}
