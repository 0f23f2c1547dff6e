import type { Node } from "../../ir/node.ts";
import { sizeOf } from "../../ir/shape.ts";
import { sumExpr, type RenderContext } from "./context.ts";
import { literal, roundExpr, roundValue } from "./expr.ts";

/**
 * Kernels that move values by index: gather, scatter_add, cumsum, concat, pad. Each works on
 * contiguous buffers split as [outer, axis, inner] around its axis, so the innermost loop is a
 * contiguous run.
 */

function around(shape: readonly number[], axis: number): { outer: number; inner: number } {
  return { outer: sizeOf(shape.slice(0, axis)), inner: sizeOf(shape.slice(axis + 1)) };
}

function roundAll(n: Node, name: string, offset: string): string[] {
  if (n.dtype === "f64") return [];
  const at = `${name}[${sumExpr(offset, "f")}]`;
  return [`for (let f = 0; f < ${n.size}; f++) ${at} = ${roundExpr(n.dtype, at)};`];
}

/** out[p, q, r] = x[p, idx[q], r] with a range check on every index. */
export function renderGather(n: Node, ctx: RenderContext): string[] {
  const [X, I] = n.inputs as [Node, Node];
  const axis = n.attrs.axis!;
  const x = ctx.contiguous(X), idx = ctx.contiguous(I), out = ctx.target(n);
  const { outer, inner } = around(X.shape, axis);
  const d = X.shape[axis]!, k = I.size;
  return [
    `for (let p = 0; p < ${outer}; p++) {`,
    `  for (let q = 0; q < ${k}; q++) {`,
    `    const j = ${idx.name}[${sumExpr(idx.offset, "q")}];`,
    `    if (!(j >= 0 && j < ${d})) F.indexError("gather", j, ${d}, q);`,
    `    const src = ${sumExpr(x.offset, `(p * ${d} + j) * ${inner}`)}, dst = ${sumExpr(out.offset, `(p * ${k} + q) * ${inner}`)};`,
    `    for (let r = 0; r < ${inner}; r++) ${out.name}[dst + r] = ${x.name}[src + r];`,
    `  }`,
    `}`,
  ];
}

/** out = 0; out[p, idx[q], r] += updates[p, q, r], in the reference's (row-major) order. */
export function renderScatterAdd(n: Node, ctx: RenderContext): string[] {
  const [U, I] = n.inputs as [Node, Node];
  const axis = n.attrs.axis!;
  const u = ctx.contiguous(U), idx = ctx.contiguous(I), out = ctx.target(n);
  const { outer, inner } = around(n.shape, axis);
  const d = n.shape[axis]!, k = I.size;
  return [
    `for (let f = 0; f < ${n.size}; f++) ${out.name}[${sumExpr(out.offset, "f")}] = 0;`,
    `for (let p = 0; p < ${outer}; p++) {`,
    `  for (let q = 0; q < ${k}; q++) {`,
    `    const j = ${idx.name}[${sumExpr(idx.offset, "q")}];`,
    `    if (!(j >= 0 && j < ${d})) F.indexError("scatter_add", j, ${d}, q);`,
    `    const src = ${sumExpr(u.offset, `(p * ${k} + q) * ${inner}`)}, dst = ${sumExpr(out.offset, `(p * ${d} + j) * ${inner}`)};`,
    `    for (let r = 0; r < ${inner}; r++) ${out.name}[dst + r] += ${u.name}[src + r];`,
    `  }`,
    `}`,
    ...roundAll(n, out.name, out.offset),
  ];
}

/** Running sums along an axis: each row of the axis adds the previous row (0 + x first, as the reference's accumulator). */
export function renderCumsum(n: Node, ctx: RenderContext): string[] {
  const axis = n.attrs.axis!;
  const x = ctx.contiguous(n.inputs[0]!), out = ctx.target(n);
  const { outer, inner } = around(n.shape, axis);
  const d = n.shape[axis]!;
  const rev = n.attrs.reverse === true;
  return [
    `for (let p = 0; p < ${outer}; p++) {`,
    `  for (let t = 0; t < ${d}; t++) {`,
    `    const k = ${rev ? `${d - 1} - t` : "t"}, prev = ${rev ? "k + 1" : "k - 1"};`,
    `    const src = ${sumExpr(x.offset, `(p * ${d} + k) * ${inner}`)}, dst = ${sumExpr(out.offset, `(p * ${d} + k) * ${inner}`)};`,
    `    const before = ${sumExpr(out.offset, `(p * ${d} + prev) * ${inner}`)};`,
    `    for (let r = 0; r < ${inner}; r++) ${out.name}[dst + r] = (t === 0 ? 0 : ${out.name}[before + r]) + ${x.name}[src + r];`,
    `  }`,
    `}`,
    ...roundAll(n, out.name, out.offset),
  ];
}

/** Copy each input's [outer, inner] block into its place along the axis. */
export function renderConcat(n: Node, ctx: RenderContext): string[] {
  const axis = n.attrs.axis!;
  const out = ctx.target(n);
  const { outer, inner } = around(n.shape, axis);
  const rowOut = n.shape[axis]! * inner;
  const lines: string[] = [];
  let at = 0;
  for (const X of n.inputs) {
    const x = ctx.contiguous(X);
    const row = X.shape[axis]! * inner;
    lines.push(`// n${ctx.id(X)} goes to [${at}, ${at + X.shape[axis]!}) along axis ${axis}`);
    lines.push(`for (let p = 0; p < ${outer}; p++) {`);
    lines.push(`  const src = ${sumExpr(x.offset, `p * ${row}`)}, dst = ${sumExpr(out.offset, `p * ${rowOut}`, at * inner)};`);
    lines.push(`  for (let r = 0; r < ${row}; r++) ${out.name}[dst + r] = ${x.name}[src + r];`);
    lines.push(`}`);
    at += X.shape[axis]!;
  }
  return lines;
}

/** Fill with the pad value, then copy the input into the interior, one contiguous row at a time. */
export function renderPad(n: Node, ctx: RenderContext): string[] {
  const X = n.inputs[0]!;
  const x = ctx.contiguous(X), out = ctx.target(n);
  const widths = n.attrs.widths!;
  const fill = literal(roundValue(n.dtype, n.attrs.padValue ?? 0));
  const lines = [`for (let f = 0; f < ${n.size}; f++) ${out.name}[${sumExpr(out.offset, "f")}] = ${fill};`];
  if (X.size === 0) return lines;
  const r = X.rank;
  const outStrides = n.shape.map((_, i) => sizeOf(n.shape.slice(i + 1)));
  const inStrides = X.shape.map((_, i) => sizeOf(X.shape.slice(i + 1)));
  // Loops over all input axes but the last; the last is one contiguous run.
  const src: (string | number)[] = [x.offset];
  const dst: (string | number)[] = [out.offset, widths[r - 1]![0]];
  let depth = 0;
  for (let a = 0; a < r - 1; a++) {
    lines.push(`${"  ".repeat(depth++)}for (let p${a} = 0; p${a} < ${X.shape[a]}; p${a}++) {`);
    src.push(`p${a} * ${inStrides[a]}`);
    dst.push(`(p${a} + ${widths[a]![0]}) * ${outStrides[a]}`);
  }
  const pad = "  ".repeat(depth);
  lines.push(`${pad}const src = ${sumExpr(...src)}, dst = ${sumExpr(...dst)};`);
  lines.push(`${pad}for (let r = 0; r < ${X.shape[r - 1]}; r++) ${out.name}[dst + r] = ${x.name}[src + r];`);
  for (let a = r - 2; a >= 0; a--) lines.push(`${"  ".repeat(a)}}`);
  return lines;
}
