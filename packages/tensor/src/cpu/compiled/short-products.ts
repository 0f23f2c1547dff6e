import { add, mul } from "../../api/elementwise.ts";
import { sum } from "../../api/reduce.ts";
import { concat, reshape, slice } from "../../api/shape-ops.ts";
import { rebuild } from "../../graph/substitute.ts";
import { toposort } from "../../graph/toposort.ts";
import { Node } from "../../ir/node.ts";
import { mapScanBodies } from "../../rewrite/scan-bodies.ts";
import { isUnitReshape } from "./layout.ts";
import { UNROLL_MAX_INNER, WASM_MIN_PRODUCTS } from "./matmul.ts";

/**
 * Short matrix-vector products as the elementwise ops and sums they are, so that the scheduler
 * fuses them with the loops around them instead of giving each a kernel and a pass over memory:
 *
 * - a **row product** X·β with few columns (inner dimension ≤ UNROLL_MAX_INNER) becomes, per row,
 *   0 + x₀β₀ + x₁β₁ + … over the columns of X (strided views, see layout.ts): elementwise nodes
 *   that join the loop of their consumer, the row's dot computed where its value is used;
 * - a **column product** Aᵀ·r with few rows (a regression's gradient Xᵀ·r over K ≤ UNROLL_MAX_INNER
 *   predictors) becomes K sums Σᵢ A[k,i]·r[i], which share one loop over the rows with the log
 *   density's other sums (siblings.ts), and the loop that computes r moves into it (sink.ts).
 *
 * Same bits: the matrix product's kernels add each output's products from 0 in increasing inner
 * index (matmul.ts), and so do these ops: the row product's sum is written in that order, and a
 * sum starts from 0 and adds in row order. Only f64 products: an f32 product adds in f64 and rounds
 * once, where the ops would round each step. A product large enough to run in WebAssembly
 * (WASM_MIN_PRODUCTS) keeps its kernel.
 */
export function lowerShortProducts(outputs: readonly Node[]): Node[] {
  if (!toposort(outputs).some((n) => n.op === "matmul" || n.op === "scan")) return [...outputs];
  const inner = mapScanBodies(outputs, (body) => lowerShortProducts(body));
  // The products rewritten here: a unit reshape of one reads the rewritten ops directly.
  const lowered = new Set<Node>();
  return rebuild(inner, (n, inputs) => {
    if (n.op === "matmul") {
      const m = lowerProduct(n, inputs[0]!, inputs[1]!);
      if (m) {
        lowered.add(m);
        return m;
      }
    }
    // reshape(reshape(y, [N, 1]), [N]) is y: the consumer's loop then reads y's local value.
    const x = inputs[0];
    if (n.op === "reshape" && x && lowered.has(x) && x.op === "reshape" && isUnitReshape(x.shape, n.shape)) return reshape(x.inputs[0]!, n.shape);
    return inputs.every((y, k) => y === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
}

/** Which form a matrix product is lowered to, if any. */
export function shortProductKind(n: Node): "row" | "column" | null {
  if (n.op !== "matmul" || n.rank !== 2 || n.dtype !== "f64") return null;
  const [A, B] = n.inputs as [Node, Node];
  if (A.rank !== 2 || B.rank !== 2 || n.shape[1] !== 1) return null;
  const [rows, inner] = A.shape as [number, number];
  if (rows * inner >= WASM_MIN_PRODUCTS) return null;
  // Few rows over a longer inner dimension (Xᵀ·r): sums over the inner dimension, in the loop over it.
  if (rows <= UNROLL_MAX_INNER && inner > rows) return "column";
  if (inner <= UNROLL_MAX_INNER) return "row";
  return null;
}

// The product's replacement, of its shape [rows, 1], or null to keep it.
function lowerProduct(n: Node, A: Node, B: Node): Node | null {
  const kind = shortProductKind(n);
  if (kind === null) return null;
  const [rows, inner] = A.shape as [number, number];
  if (kind === "row") {
    // 0 + x₀β₀ + x₁β₁ + …: each column of A (a strided view) times one entry of B.
    let s: Node | number = 0;
    for (let l = 0; l < inner; l++) {
      const column = reshape(slice(A, [undefined, { start: l, stop: l + 1 }]), [rows]);
      const entry = reshape(slice(B, [{ start: l, stop: l + 1 }]), []);
      s = add(s, mul(column, entry));
    }
    return reshape(s as Node, [rows, 1]);
  }
  // Σᵢ A[k,i]·r[i] for each row k of A, joined into the column.
  const r = vectorOf(B, inner);
  const sums = Array.from({ length: rows }, (_, k) => reshape(sum(mul(reshape(slice(A, [{ start: k, stop: k + 1 }]), [inner]), r), 0), [1]));
  return reshape(rows === 1 ? sums[0]! : concat(sums, 0), [rows, 1]);
}

// B [N, 1] as a vector [N]: the vector it was reshaped from, when it was one (so that the sums read
// its value in the loop that computes it, not through a view of its buffer).
function vectorOf(B: Node, n: number): Node {
  const from = B.op === "reshape" ? B.inputs[0]! : undefined;
  return from && from.rank === 1 && from.shape[0] === n ? from : reshape(B, [n]);
}
