import { add } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { scan } from "../../api/scan.ts";
import { substitute } from "../../graph/substitute.ts";
import { toposort } from "../../graph/toposort.ts";
import { isFloat } from "../../ir/dtype.ts";
import type { Node } from "../../ir/node.ts";
import type { TupleVjpRule } from "../rule.ts";

const zerosLike = (x: Node) => constant(0, x.shape, x.dtype);

/**
 * scan: reverse mode through the recurrence.
 *
 * 1. A second forward scan with the same body stacks the carries entering every step.
 * 2. A reverse scan walks the steps backwards. Its body is the vjp of the forward body (this same
 *    transform, applied to the body re-bound to the reverse body's args) w.r.t. (carry, x, consts):
 *    it carries the carry cotangent and, as extra carries, the running sums of the const cotangents;
 *    the x cotangents come out stacked as its ys.
 *
 * Both scans are built through the public `scan`, so their args get the right nesting depth and
 * a scan inside the body is differentiated by this rule again, one level deeper.
 */
export const scanRule: TupleVjpRule = (node, cts, needed, vjp) => {
  const { outputs, nCarry, nX } = node.attrs.body!;
  const length = node.attrs.length!;
  const reverse = node.attrs.reverseScan ?? false;
  const init = node.inputs.slice(0, nCarry);
  const xs = node.inputs.slice(nCarry, nCarry + nX);
  const consts = node.inputs.slice(nCarry + nX);

  // The body's args, to be replaced by the args of the scans built here.
  const bodyArgs = toposort(outputs).filter((n) => n.op === "arg");
  const rebind = (args: readonly Node[]) => substitute(outputs, new Map(bodyArgs.map((a) => [a, args[a.attrs.index!]!] as const)));

  // Every float carry takes part in the recurrence; xs and consts get cotangents only where needed.
  const floatCarry = indicesWhere(init, (n) => isFloat(n.dtype));
  const floatX = indicesWhere(xs, (n, i) => isFloat(n.dtype) && needed[nCarry + i]!);
  const floatConst = indicesWhere(consts, (n, i) => isFloat(n.dtype) && needed[nCarry + nX + i]!);
  const ysWithCt = indicesWhere(cts.slice(nCarry), (c) => c !== null);

  const stacked = nCarry === 0 ? [] : scan(
    (c, x, k) => ({ carry: rebind([...c, ...x, ...k]).slice(0, nCarry), ys: c }),
    init, xs, consts, { length, reverse },
  ).ys;

  const back = scan(
    (rc, rx, rk) => {
      const ctCarry = rc.slice(0, floatCarry.length);
      const acc = rc.slice(floatCarry.length);
      const x = rx.slice(0, nX);
      const c = rx.slice(nX, nX + nCarry);
      const ctYs = rx.slice(nX + nCarry);
      const outs = rebind([...c, ...x, ...rk]);
      const outCts: (Node | null)[] = outs.map(() => null);
      floatCarry.forEach((i, q) => (outCts[i] = ctCarry[q]!));
      ysWithCt.forEach((k, q) => (outCts[nCarry + k] = ctYs[q]!));
      const wrt = [...floatCarry.map((i) => c[i]!), ...floatX.map((i) => x[i]!), ...floatConst.map((j) => rk[j]!)];
      const g = vjp(outs, outCts, wrt);
      const gc = g.slice(0, floatCarry.length), gx = g.slice(floatCarry.length, floatCarry.length + floatX.length);
      const gk = g.slice(floatCarry.length + floatX.length);
      return { carry: [...gc, ...gk.map((gj, q) => add(acc[q]!, gj))], ys: gx };
    },
    [...floatCarry.map((i) => cts[i] ?? zerosLike(init[i]!)), ...floatConst.map((j) => zerosLike(consts[j]!))],
    [...xs, ...stacked, ...ysWithCt.map((k) => cts[nCarry + k]!)],
    consts,
    { length, reverse: !reverse },
  );

  const result: (Node | null)[] = node.inputs.map(() => null);
  floatCarry.forEach((i, q) => (result[i] = back.carry[q]!));
  floatX.forEach((i, q) => (result[nCarry + i] = back.ys[q]!));
  floatConst.forEach((j, q) => (result[nCarry + nX + j] = back.carry[floatCarry.length + q]!));
  return result;
};

function indicesWhere<T>(items: readonly T[], pred: (t: T, i: number) => boolean): number[] {
  const out: number[] = [];
  items.forEach((t, i) => {
    if (pred(t, i)) out.push(i);
  });
  return out;
}
