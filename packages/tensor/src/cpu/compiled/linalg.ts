import type { Node } from "../../ir/node.ts";
import { sizeOf, stridesOf } from "../../ir/shape.ts";
import { batchLoops, batchStrides, indent } from "./batch.ts";
import { sumExpr, type RenderContext } from "./context.ts";
import { roundExpr } from "./expr.ts";

// Round a finished buffer to its dtype: linear algebra works in f64 throughout, as the reference does.
function roundAll(n: Node, name: string, offset: string): string[] {
  if (n.dtype === "f64") return [];
  const at = `${name}[${sumExpr(offset, "f")}]`;
  return [`for (let f = 0; f < ${n.size}; f++) ${at} = ${roundExpr(n.dtype, at)};`];
}

/** Lower Cholesky factor of each matrix in the batch (left-looking, the reference's operation order; NaN when not positive definite). */
export function renderCholesky(n: Node, ctx: RenderContext): string[] {
  const a = ctx.contiguous(n.inputs[0]!);
  const out = ctx.target(n);
  const size = n.shape[n.rank - 1]!;
  const count = sizeOf(n.shape.slice(0, -2));
  const A = (e: string) => `${a.name}[${sumExpr(a.offset, e)}]`;
  const L = (e: string) => `${out.name}[${sumExpr(out.offset, e)}]`;
  return [
    `for (let f = 0; f < ${n.size}; f++) ${L("f")} = 0;`,
    `for (let t = 0; t < ${count}; t++) {`,
    `  const o = t * ${size * size};`,
    `  for (let j = 0; j < ${size}; j++) {`,
    `    let d = ${A(`o + j * ${size} + j`)};`,
    `    for (let k = 0; k < j; k++) d -= ${L(`o + j * ${size} + k`)} ** 2;`,
    `    const ljj = d > 0 ? Math.sqrt(d) : NaN;`,
    `    ${L(`o + j * ${size} + j`)} = ljj;`,
    `    for (let i = j + 1; i < ${size}; i++) {`,
    `      let s = ${A(`o + i * ${size} + j`)};`,
    `      for (let k = 0; k < j; k++) s -= ${L(`o + i * ${size} + k`)} * ${L(`o + j * ${size} + k`)};`,
    `      ${L(`o + i * ${size} + j`)} = s / ljj;`,
    `    }`,
    `  }`,
    `}`,
    ...roundAll(n, out.name, out.offset),
  ];
}

/** Solve L X = B (or Lᵀ X = B) by substitution, column by column, with batch broadcasting. */
export function renderTriangularSolve(n: Node, ctx: RenderContext): string[] {
  const [Ln, Bn] = n.inputs as [Node, Node];
  const l = ctx.contiguous(Ln), b = ctx.contiguous(Bn);
  const out = ctx.target(n);
  const id = ctx.id(n);
  const size = Ln.shape[Ln.rank - 1]!, m = Bn.shape[Bn.rank - 1]!;
  const batch = n.shape.slice(0, -2);
  const { open, close, offsets } = batchLoops(`s${id}`, batch, [
    { offset: l.offset, strides: batchStrides(Ln.shape, stridesOf(Ln.shape), batch) },
    { offset: b.offset, strides: batchStrides(Bn.shape, stridesOf(Bn.shape), batch) },
    { offset: out.offset, strides: stridesOf(n.shape).slice(0, -2) },
  ]);
  const trans = n.attrs.transposeA!;
  // Solving with Lᵀ for lower L is solving with an upper matrix, and vice versa.
  const forward = n.attrs.lower! !== trans;
  const at = (i: string, j: string) => `${l.name}[lo + ${trans ? `${j} * ${size} + ${i}` : `${i} * ${size} + ${j}`}]`;
  const body = [
    `const lo = ${offsets[0]}, bo = ${offsets[1]}, oo = ${offsets[2]};`,
    `for (let c = 0; c < ${m}; c++) {`,
    `  for (let s = 0; s < ${size}; s++) {`,
    `    const i = ${forward ? "s" : `${size - 1} - s`};`,
    `    let v = ${b.name}[bo + i * ${m} + c];`,
    `    for (let r = 0; r < s; r++) {`,
    `      const j = ${forward ? "r" : `${size - 1} - r`};`,
    `      v -= ${at("i", "j")} * ${out.name}[oo + j * ${m} + c];`,
    `    }`,
    `    ${out.name}[oo + i * ${m} + c] = v / ${at("i", "i")};`,
    `  }`,
    `}`,
  ];
  return [...open, ...indent(body, open.length), ...close, ...roundAll(n, out.name, out.offset)];
}

/** General solve X = A⁻¹B by LU with partial pivoting, per matrix of the (broadcast) batch, through the reference's own kernel (cpu/linalg.ts). */
export function renderSolve(n: Node, ctx: RenderContext): string[] {
  const [An, Bn] = n.inputs as [Node, Node];
  const a = ctx.contiguous(An), b = ctx.contiguous(Bn);
  const out = ctx.target(n);
  const size = An.shape[An.rank - 1]!, m = Bn.shape[Bn.rank - 1]!;
  const batch = n.shape.slice(0, -2);
  const { open, close, offsets } = batchLoops(`s${ctx.id(n)}`, batch, [
    { offset: a.offset, strides: batchStrides(An.shape, stridesOf(An.shape), batch) },
    { offset: b.offset, strides: batchStrides(Bn.shape, stridesOf(Bn.shape), batch) },
    { offset: out.offset, strides: stridesOf(n.shape).slice(0, -2) },
  ]);
  const call = `F.luSolveMatrix(${a.name}, ${offsets[0]}, ${b.name}, ${offsets[1]}, ${out.name}, ${offsets[2]}, ${size}, ${m});`;
  return [...open, ...indent([call], open.length), ...close, ...roundAll(n, out.name, out.offset)];
}

/** slogdet ([sign, log|det|] per matrix) or eigh (eigenvectors and eigenvalues per matrix), through the reference's own kernels. */
export function renderPerMatrix(n: Node, ctx: RenderContext): string[] {
  const x = ctx.contiguous(n.inputs[0]!);
  const out = ctx.target(n);
  const size = n.inputs[0]!.shape[n.rank - 1]!;
  // slogdet's output is [..., 2], eigh's [..., n + 1, n]: the batch is the input's.
  const count = sizeOf(n.inputs[0]!.shape.slice(0, -2));
  const per = n.op === "slogdet" ? 2 : (size + 1) * size;
  const f = n.op === "slogdet" ? "slogdetMatrix" : "eighMatrix";
  return [
    `for (let t = 0; t < ${count}; t++) F.${f}(${x.name}, ${sumExpr(x.offset, `t * ${size * size}`)}, ${out.name}, ${sumExpr(out.offset, `t * ${per}`)}, ${size});`,
    ...roundAll(n, out.name, out.offset),
  ];
}
