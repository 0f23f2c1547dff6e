import { type Node } from "@ppl/tensor";
import { sizeOf, stridesOf } from "@ppl/tensor/internals";
import { glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { renderSequential } from "./sequential.ts";
import type { UnitContext } from "./units.ts";

/**
 * Render a scan as an in-kernel loop run by one thread: carries live in local arrays, the body's
 * materialized nodes in local arrays declared inside the loop, xs are read from their outer
 * storage at step t, consts from theirs; ys and final carries are written to the storage of the
 * scan's tuple_get users.
 */
export function renderScan(node: Node, scope: Scope, ctx: UnitContext, users: readonly Node[]): void {
  const body = node.attrs.body!;
  const length = node.attrs.length!;
  const outer = ctx.storage;
  const r = ctx.r;
  const sid = r.fresh("scan");
  const carryNodes = node.inputs.slice(0, body.nCarry);
  const xNodes = node.inputs.slice(body.nCarry, body.nCarry + body.nX);
  const constNodes = node.inputs.slice(body.nCarry + body.nX);
  const carryName = (k: number) => `${sid}_c${k}`;

  // Carries start as the init values.
  carryNodes.forEach((c, k) => {
    scope.emit(`${glslType(c.dtype)} ${carryName(k)}[${Math.max(1, c.size)}];`);
    const init = scope.child();
    const i = r.fresh("i");
    init.emit(`${carryName(k)}[${i}] = ${r.value(c, unflattenLocal(c.shape, i), init)};`);
    scope.block(`for (int ${i} = 0; ${i} < ${c.size}; ${i}++)`, init);
  });

  const t = r.fresh("t");
  const step = scope.child();
  const s = r.fresh("s");
  step.emit(`int ${t} = ${node.attrs.reverseScan ? `${length - 1} - ${s}` : s};`);

  const bodyArgs = new Set(schedule(body.outputs).leaves.filter((l) => l.op === "arg"));
  const program = renderSequential(
    body.outputs,
    (n, idx, sc) => {
      if (n.op !== "arg" || !bodyArgs.has(n)) return undefined;
      const a = n.attrs.index!;
      if (a < body.nCarry) return `${carryName(a)}[${flatten(n.shape, idx)}]`;
      if (a < body.nCarry + body.nX) return r.value(xNodes[a - body.nCarry]!, [t, ...idx], sc);
      return r.value(constNodes[a - body.nCarry - body.nX]!, idx, sc);
    },
    step,
    r,
    outer,
    sid,
  );
  const bodyCtx = { r: program.r };
  // New carries are copied only after every output of the step is computed from the old ones.
  const outs = body.outputs;
  const ysUsers = new Map(users.map((g) => [g.attrs.index!, g] as const));
  const next: string[] = [];
  outs.slice(0, body.nCarry).forEach((o, k) => {
    const tmp = `${sid}_n${k}`;
    next.push(tmp);
    step.emit(`${glslType(o.dtype)} ${tmp}[${Math.max(1, o.size)}];`);
    const cp = step.child();
    const i = r.fresh("i");
    cp.emit(`${tmp}[${i}] = ${bodyCtx.r.value(o, unflattenLocal(o.shape, i), cp)};`);
    step.block(`for (int ${i} = 0; ${i} < ${o.size}; ${i}++)`, cp);
  });
  outs.slice(body.nCarry).forEach((o, k) => {
    const g = ysUsers.get(body.nCarry + k);
    if (!g) return;
    const cp = step.child();
    const i = r.fresh("i");
    const per = sizeOf(o.shape);
    cp.emit(outer.write(g, `${t} * ${per} + ${i}`, bodyCtx.r.value(o, unflattenLocal(o.shape, i), cp)));
    step.block(`for (int ${i} = 0; ${i} < ${per}; ${i}++)`, cp);
  });
  // With no xs and no ys a step is a function of the carries alone: once a step leaves every carry
  // bit for bit as it was, every later step would too, and the loop stops (as the CPU backends do).
  // An adaptive ODE solver's scan of maxSteps attempts then ends at its last output time.
  const fixedPoint = body.nX === 0 && outs.length === body.nCarry;
  const moved = `${sid}_moved`;
  if (fixedPoint) step.emit(`bool ${moved} = false;`);
  next.forEach((tmp, k) => {
    const cp = step.child();
    const i = r.fresh("i");
    if (fixedPoint) cp.emit(`if (${bitsOf(outs[k]!.dtype, `${carryName(k)}[${i}]`)} != ${bitsOf(outs[k]!.dtype, `${tmp}[${i}]`)}) ${moved} = true;`);
    cp.emit(`${carryName(k)}[${i}] = ${tmp}[${i}];`);
    step.block(`for (int ${i} = 0; ${i} < ${outs[k]!.size}; ${i}++)`, cp);
  });
  if (fixedPoint) step.emit(`if (!${moved}) break;`);
  scope.block(`for (int ${s} = 0; ${s} < ${length}; ${s}++)`, step);

  // Final carries go to their tuple_get users.
  carryNodes.forEach((c, k) => {
    const g = ysUsers.get(k);
    if (!g) return;
    const cp = scope.child();
    const i = r.fresh("i");
    cp.emit(outer.write(g, i, `${carryName(k)}[${i}]`));
    scope.block(`for (int ${i} = 0; ${i} < ${c.size}; ${i}++)`, cp);
  });
}

// A float's bits, so that NaN equals itself and −0 differs from 0 (the CPU's Object.is).
function bitsOf(dtype: string, v: string): string {
  return dtype === "f64" ? `unpackDouble2x32(${v})` : dtype === "f32" ? `floatBitsToUint(${v})` : v;
}

function unflattenLocal(shape: readonly number[], i: string): string[] {
  const st = stridesOf(shape);
  return shape.map((d, a) => (d === 1 ? "0" : a === 0 ? `(${i})/${st[a]}` : `((${i})/${st[a]})%${d}`));
}
