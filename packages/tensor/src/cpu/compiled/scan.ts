import type { Node } from "../../ir/node.ts";
import { sizeOf } from "../../ir/shape.ts";
import { sumExpr, type ArrayRef, type RenderContext } from "./context.ts";

/**
 * A scan: a JS loop that calls the body, compiled as its own program, once per step. Carries
 * ping-pong between two scratch buffers; xs are read and ys written in place through offsets
 * into the stacked arrays, so a step allocates nothing. A scan without xs and ys stops at a fixed point of its carries.
 */
export function renderScan(n: Node, ctx: RenderContext, users: readonly Node[]): string[] {
  const body = n.attrs.body!;
  const length = n.attrs.length!;
  const outs = n.attrs.outputs!;
  const id = ctx.id(n);
  const nArgs = body.nCarry + body.nX + body.nConst;
  const child = ctx.child(body.outputs, nArgs);
  // Where each output of the scan goes: the tuple_get node that reads it, or scratch when unused.
  const outRef = (k: number): ArrayRef => {
    const g = users.find((u) => u.op === "tuple_get" && u.attrs.index === k);
    return g ? ctx.target(g) : { name: ctx.scratch(sizeOf(outs[k]!.shape), `unused output ${k} of scan n${id}`), offset: "0" };
  };
  const S = `S${id}`;
  const lines = [`const ${S} = C[${child}], ${S}in = ${S}.IN, ${S}inOff = ${S}.INOFF, ${S}out = ${S}.OUT, ${S}outOff = ${S}.OUTOFF;`];
  const perStep: string[] = [];
  const swaps: string[] = [];
  const finals: string[] = [];
  for (let k = 0; k < body.nCarry; k++) {
    const size = sizeOf(outs[k]!.shape);
    const init = ctx.contiguous(n.inputs[k]!);
    const [cur, next] = [`c${id}_${k}`, `c${id}_${k}n`];
    lines.push(`let ${cur} = ${ctx.scratch(size, `carry ${k} of scan n${id}`)}, ${next} = ${ctx.scratch(size, `next carry ${k} of scan n${id}`)};`);
    lines.push(`for (let f = 0; f < ${size}; f++) ${cur}[f] = ${init.name}[${sumExpr(init.offset, "f")}];`);
    perStep.push(`${S}in[${k}] = ${cur}; ${S}inOff[${k}] = 0; ${S}out[${k}] = ${next}; ${S}outOff[${k}] = 0;`);
    swaps.push(`{ const w = ${cur}; ${cur} = ${next}; ${next} = w; }`);
    const fin = outRef(k);
    finals.push(`for (let f = 0; f < ${size}; f++) ${fin.name}[${sumExpr(fin.offset, "f")}] = ${cur}[f];`);
  }
  for (let k = 0; k < body.nX; k++) {
    const xn = n.inputs[body.nCarry + k]!;
    const x = ctx.contiguous(xn);
    lines.push(`${S}in[${body.nCarry + k}] = ${x.name};`);
    perStep.push(`${S}inOff[${body.nCarry + k}] = ${sumExpr(x.offset, `t * ${sizeOf(xn.shape.slice(1))}`)};`);
  }
  for (let k = 0; k < body.nConst; k++) {
    const c = ctx.contiguous(n.inputs[body.nCarry + body.nX + k]!);
    const slot = body.nCarry + body.nX + k;
    lines.push(`${S}in[${slot}] = ${c.name}; ${S}inOff[${slot}] = ${c.offset};`);
  }
  for (let k = body.nCarry; k < outs.length; k++) {
    const y = outRef(k);
    const step = sizeOf(outs[k]!.shape.slice(1));
    lines.push(`${S}out[${k}] = ${y.name};`);
    perStep.push(`${S}outOff[${k}] = ${sumExpr(y.offset, `t * ${step}`)};`);
  }
  lines.push(`for (let s = 0; s < ${length}; s++) {`);
  lines.push(`  const t = ${n.attrs.reverseScan ? `${length - 1} - s` : "s"};`);
  for (const l of perStep) lines.push(`  ${l}`);
  lines.push(`  ${S}.run(${S}in, ${S}inOff, ${S}out, ${S}outOff, ${S}.T, ${S}.C);`);
  for (const l of swaps) lines.push(`  ${l}`);
  // With no xs and no ys a step is a function of the carries alone: once a step leaves every
  // carry as it was (the same values, NaN and −0 included), every later step would too, so the
  // loop stops there. An adaptive ODE solver's scan of maxSteps attempts ends at its last output.
  if (body.nX === 0 && outs.length === body.nCarry) {
    const same = Array.from({ length: body.nCarry }, (_, k) => `for (let f = 0; f < ${sizeOf(outs[k]!.shape)}; f++) if (!Object.is(c${id}_${k}[f], c${id}_${k}n[f])) { moved = true; break; }`);
    lines.push(`  { let moved = false; ${same.map((l, k) => (k === 0 ? l : `if (!moved) ${l}`)).join(" ")} if (!moved) break; }`);
  }
  lines.push(`}`);
  return [...lines, ...finals];
}
