import type { Node } from "../../ir/node.ts";
import { stridesOf } from "../../ir/shape.ts";
import { batchLoops, batchStrides, indent } from "./batch.ts";
import { scaled, sumExpr, type RenderContext } from "./context.ts";
import { roundExpr } from "./expr.ts";

/**
 * Matrix product with batch broadcasting, reading both operands through strided windows (so
 * a transpose is never copied). The loop order is picked from the strides so the innermost loop
 * walks memory contiguously:
 *   - A stored transposed (Xᵀ·r): l outer, out[i,:] += A[i,l]·B[l,:] — reads Xᵀ's columns as X's rows;
 *   - B's rows contiguous and more than one column: i, l, j (axpy of B's rows);
 *   - otherwise (X·β, dot products): i, j, then the sum over l.
 * Every order adds the products for one output element in increasing l starting from 0, as the
 * reference does, so results agree bit for bit.
 */
export function renderMatmul(n: Node, ctx: RenderContext): string[] {
  const [A, B] = n.inputs as [Node, Node];
  const a = ctx.strided(A), b = ctx.strided(B);
  const id = ctx.id(n);
  const out = ctx.target(n);
  const rows = n.shape[n.rank - 2]!, cols = n.shape[n.rank - 1]!, inner = A.shape[A.rank - 1]!;
  const batch = n.shape.slice(0, -2);
  const sAi = rows > 1 ? a.strides[A.rank - 2]! : 0, sAl = a.strides[A.rank - 1]!;
  const sBl = b.strides[B.rank - 2]!, sBj = cols > 1 ? b.strides[B.rank - 1]! : 0;
  const { open, close, offsets } = batchLoops(`m${id}`, batch, [
    { offset: a.offset, strides: batchStrides(A.shape, a.strides, batch) },
    { offset: b.offset, strides: batchStrides(B.shape, b.strides, batch) },
    { offset: out.offset, strides: stridesOf(n.shape).slice(0, -2) },
  ]);
  const depth = open.length;
  const [ao, bo, oo] = [`ao${id}`, `bo${id}`, `oo${id}`];
  const body: string[] = [`const ${ao} = ${offsets[0]}, ${bo} = ${offsets[1]}, ${oo} = ${offsets[2]};`];
  const A_ = (...t: (string | number)[]) => `${a.name}[${sumExpr(...t)}]`;
  const B_ = (...t: (string | number)[]) => `${b.name}[${sumExpr(...t)}]`;
  const O_ = (...t: (string | number)[]) => `${out.name}[${sumExpr(...t)}]`;
  let order: string;
  if (sAi === 1 && sAl !== 1 && rows > 1) {
    order = "l, i, j (A is stored transposed)";
    body.push(`for (let f = 0; f < ${rows * cols}; f++) ${O_(oo, "f")} = 0;`);
    body.push(`for (let l = 0; l < ${inner}; l++) {`);
    body.push(`  const al = ${sumExpr(ao, scaled("l", sAl))}, bl = ${sumExpr(bo, scaled("l", sBl))};`);
    if (cols === 1) {
      body.push(`  const bv = ${B_("bl")};`);
      body.push(`  for (let i = 0; i < ${rows}; i++) ${O_(oo, "i")} += ${A_("al", "i")} * bv;`);
    } else {
      body.push(`  for (let i = 0; i < ${rows}; i++) {`);
      body.push(`    const av = ${A_("al", "i")}, oi = ${sumExpr(oo, scaled("i", cols))};`);
      body.push(`    for (let j = 0; j < ${cols}; j++) ${O_("oi", "j")} += av * ${B_("bl", scaled("j", sBj))};`);
      body.push(`  }`);
    }
    body.push(`}`);
  } else if (sBj === 1 && cols > 1) {
    order = "i, l, j (rows of B are contiguous)";
    body.push(`for (let i = 0; i < ${rows}; i++) {`);
    body.push(`  const ai = ${sumExpr(ao, scaled("i", sAi))}, oi = ${sumExpr(oo, scaled("i", cols))};`);
    body.push(`  for (let j = 0; j < ${cols}; j++) ${O_("oi", "j")} = 0;`);
    body.push(`  for (let l = 0; l < ${inner}; l++) {`);
    body.push(`    const av = ${A_("ai", scaled("l", sAl))}, bl = ${sumExpr(bo, scaled("l", sBl))};`);
    body.push(`    for (let j = 0; j < ${cols}; j++) ${O_("oi", "j")} += av * ${B_("bl", "j")};`);
    body.push(`  }`);
    body.push(`}`);
  } else if (cols === 1 && inner <= UNROLL_MAX_INNER) {
    // X·β with a short β (a regression's few predictors): β is read once and each row's sum is
    // written out, 0 + x₀β₀ + x₁β₁ + … in increasing l as the loop adds them (the same bits); a
    // loop of 4 per row and its reads of β cost more than the products.
    order = "i, l unrolled (dot products with a short vector)";
    const bv = Array.from({ length: inner }, (_, l) => `bv${l}`);
    body.push(`const ${bv.map((v, l) => `${v} = ${B_(bo, l * sBl)}`).join(", ")};`);
    body.push(`for (let i = 0; i < ${rows}; i++) {`);
    body.push(`  const ai = ${sumExpr(ao, scaled("i", sAi))};`);
    const sum = ["0", ...bv.map((v, l) => `${A_("ai", l * sAl)} * ${v}`)].join(" + ");
    body.push(`  ${O_(oo, "i")} = ${roundExpr(n.dtype, sum)};`);
    body.push(`}`);
  } else {
    order = "i, j, l (dot products)";
    body.push(`for (let i = 0; i < ${rows}; i++) {`);
    body.push(`  const ai = ${sumExpr(ao, scaled("i", sAi))};`);
    // One column (X·β): no loop over j.
    const j = cols === 1 ? "" : "  ";
    if (cols > 1) body.push(`  for (let j = 0; j < ${cols}; j++) {`);
    body.push(`${j}  const bj = ${sumExpr(bo, cols === 1 ? 0 : scaled("j", sBj))};`);
    body.push(`${j}  let s = 0;`);
    body.push(`${j}  for (let l = 0; l < ${inner}; l++) s += ${A_("ai", scaled("l", sAl))} * ${B_("bj", scaled("l", sBl))};`);
    body.push(`${j}  ${O_(oo, scaled("i", cols), cols === 1 ? 0 : "j")} = ${roundExpr(n.dtype, "s")};`);
    if (cols > 1) body.push(`  }`);
    body.push(`}`);
  }
  const accumulates = order.startsWith("l, i, j") || order.startsWith("i, l, j");
  if (accumulates && n.dtype !== "f64") body.push(`for (let f = 0; f < ${rows * cols}; f++) ${O_(oo, "f")} = ${roundExpr(n.dtype, O_(oo, "f"))};`);
  // A long matrix-vector product runs in WebAssembly when the executable has kernels (W) and X is
  // in their memory; the JavaScript loops stay for every other case and compute the same bits.
  const wasm = wasmKernel(n, rows, cols, inner, batch, sAi, sAl, sBl);
  if (wasm) {
    const call = `W.${wasm}(${a.name}, ${ao}, ${b.name}, ${bo}, ${out.name}, ${oo}, ${rows}, ${inner})`;
    const [decl, ...loops] = body;
    body.splice(0, body.length, decl!, `if (W === undefined || !${call}) {`, ...indent(loops, 1), `}`);
  }
  return [`// loop order ${order}${wasm ? `; WebAssembly ${wasm} when the kernels have X` : ""}`, ...open, ...indent(body, depth), ...close];
}

/** The longest inner dimension of a matrix-vector product whose sum is written out, unrolled. */
export const UNROLL_MAX_INNER = 8;

/** Multiply-adds from which a matrix-vector product is worth a call into WebAssembly. */
export const WASM_MIN_PRODUCTS = 32768;

// The WebAssembly kernel for a product, if one fits: f64, no batch, one column, the long operand's
// rows contiguous (X·β: A = X; Xᵀ·r: A = Xᵀ, read as the rows of X) and B contiguous.
function wasmKernel(
  n: Node, rows: number, cols: number, inner: number, batch: readonly number[], sAi: number, sAl: number, sBl: number,
): "dot" | "dotTransposed" | null {
  if (n.dtype !== "f64" || cols !== 1 || batch.some((d) => d > 1) || rows * inner < WASM_MIN_PRODUCTS || sBl !== 1) return null;
  if (sAl === 1 && sAi === inner) return "dot";
  if (sAi === 1 && sAl === rows) return "dotTransposed";
  return null;
}
