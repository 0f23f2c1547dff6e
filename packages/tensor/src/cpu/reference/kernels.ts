import { GraphError, IndexRangeError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { isBinary, isCompare, isReduce, isUnary } from "../../ir/ops.ts";
import { sizeOf, stridesOf } from "../../ir/shape.ts";
import { BINARY, COMPARE, UNARY, polygamma } from "../scalar.ts";
import { reduceIdentity } from "../reduce-identity.ts";
import { eighMatrix, luSolveMatrix, slogdetMatrix } from "../linalg.ts";
import { argsortLines } from "../sort.ts";
import { betainc, betaincGrad } from "../special.ts";
import { broadcastIndex, flatOf, forEachIndex } from "./indexing.ts";
import { lpdfSumKernel } from "../lpdf-sum.ts";

/**
 * One obviously-correct kernel per op over Float64Array. Speed is not a goal: this is the oracle
 * every other backend is tested against. Returns values before dtype rounding.
 */
export function referenceKernel(node: Node, ins: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(node.size);
  const op = node.op;
  const a = node.inputs[0];
  if (isUnary(op)) {
    const f = UNARY[op];
    for (let i = 0; i < out.length; i++) out[i] = f(ins[0]![i]!);
    return out;
  }
  if (op === "polygamma") {
    for (let i = 0; i < out.length; i++) out[i] = polygamma(node.attrs.order!, ins[0]![i]!);
    return out;
  }
  if (op === "cast") {
    out.set(ins[0]!);
    return out;
  }
  if (isBinary(op) || isCompare(op)) {
    const f = isBinary(op) ? BINARY[op] : COMPARE[op as keyof typeof COMPARE];
    const ia = broadcastIndex(node.inputs[0]!.shape, node.shape);
    const ib = broadcastIndex(node.inputs[1]!.shape, node.shape);
    for (let i = 0; i < out.length; i++) out[i] = f(ins[0]![ia[i]!]!, ins[1]![ib[i]!]!);
    return out;
  }
  if (op === "select") {
    const [ic, ia, ib] = node.inputs.map((x) => broadcastIndex(x.shape, node.shape));
    for (let i = 0; i < out.length; i++) out[i] = ins[0]![ic![i]!] ? ins[1]![ia![i]!]! : ins[2]![ib![i]!]!;
    return out;
  }
  if (op === "betainc") {
    const [ia, ib, ix] = node.inputs.map((x) => broadcastIndex(x.shape, node.shape));
    for (let i = 0; i < out.length; i++) out[i] = betainc(ins[0]![ia![i]!]!, ins[1]![ib![i]!]!, ins[2]![ix![i]!]!);
    return out;
  }
  if (op === "betainc_grad") {
    const [ia, ib, ix] = node.inputs.map((x) => broadcastIndex(x.shape, node.shape));
    const wrt = node.attrs.wrt!;
    for (let i = 0; i < out.length; i++) out[i] = betaincGrad(ins[0]![ia![i]!]!, ins[1]![ib![i]!]!, ins[2]![ix![i]!]!, wrt);
    return out;
  }
  if (isReduce(op)) return reduceKernel(node, ins[0]!);
  if (op === "lpdf_sum") return lpdfSumKernel(node, ins);
  switch (op) {
    case "reshape":
      out.set(ins[0]!);
      return out;
    case "broadcast_to": {
      const m = broadcastIndex(a!.shape, node.shape);
      for (let i = 0; i < out.length; i++) out[i] = ins[0]![m[i]!]!;
      return out;
    }
    case "transpose": {
      const perm = node.attrs.perm!;
      const inStrides = stridesOf(a!.shape);
      forEachIndex(node.shape, (idx, f) => {
        let src = 0;
        for (let k = 0; k < perm.length; k++) src += idx[k]! * inStrides[perm[k]!]!;
        out[f] = ins[0]![src]!;
      });
      return out;
    }
    case "slice": {
      const { starts, steps } = node.attrs;
      const inStrides = stridesOf(a!.shape);
      forEachIndex(node.shape, (idx, f) => {
        let src = 0;
        for (let k = 0; k < idx.length; k++) src += (starts![k]! + idx[k]! * steps![k]!) * inStrides[k]!;
        out[f] = ins[0]![src]!;
      });
      return out;
    }
    case "concat": {
      const axis = node.attrs.axis!;
      const outStrides = stridesOf(node.shape);
      let offset = 0;
      node.inputs.forEach((x, j) => {
        forEachIndex(x.shape, (idx, f) => {
          const o = [...idx];
          o[axis] = o[axis]! + offset;
          out[flatOf(o, outStrides)] = ins[j]![f]!;
        });
        offset += x.shape[axis]!;
      });
      return out;
    }
    case "pad": {
      out.fill(node.attrs.padValue ?? 0);
      const widths = node.attrs.widths!;
      const outStrides = stridesOf(node.shape);
      forEachIndex(a!.shape, (idx, f) => {
        out[flatOf(idx.map((v, k) => v + widths[k]![0]), outStrides)] = ins[0]![f]!;
      });
      return out;
    }
    case "gather": {
      const axis = node.attrs.axis!;
      const ind = node.inputs[1]!;
      const inStrides = stridesOf(a!.shape);
      const indStrides = stridesOf(ind.shape);
      const d = a!.shape[axis]!;
      forEachIndex(node.shape, (idx, f) => {
        const e = flatOf(idx.slice(axis, axis + ind.rank), indStrides);
        const j = ins[1]![e]!;
        if (j < 0 || j >= d || !Number.isInteger(j)) throw new IndexRangeError("gather", j, d, e);
        const src = [...idx.slice(0, axis), j, ...idx.slice(axis + ind.rank)];
        out[f] = ins[0]![flatOf(src, inStrides)]!;
      });
      return out;
    }
    case "scatter_add": {
      const axis = node.attrs.axis!;
      const ind = node.inputs[1]!;
      const outStrides = stridesOf(node.shape);
      const indStrides = stridesOf(ind.shape);
      const d = node.shape[axis]!;
      forEachIndex(a!.shape, (idx, f) => {
        const e = flatOf(idx.slice(axis, axis + ind.rank), indStrides);
        const j = ins[1]![e]!;
        if (j < 0 || j >= d || !Number.isInteger(j)) throw new IndexRangeError("scatter_add", j, d, e);
        const dst = [...idx.slice(0, axis), j, ...idx.slice(axis + ind.rank)];
        out[flatOf(dst, outStrides)]! += ins[0]![f]!;
      });
      return out;
    }
    case "cumsum": {
      const axis = node.attrs.axis!;
      const strides = stridesOf(node.shape);
      const n = node.shape[axis]!;
      const st = strides[axis]!;
      forEachIndex(node.shape.map((d, k) => (k === axis ? 1 : d)), (idx) => {
        const base = flatOf(idx, strides);
        let acc = 0;
        for (let t = 0; t < n; t++) {
          const k = node.attrs.reverse ? n - 1 - t : t;
          acc += ins[0]![base + k * st]!;
          out[base + k * st] = acc;
        }
      });
      return out;
    }
    case "argsort": {
      const axis = node.attrs.axis!;
      const outer = sizeOf(node.shape.slice(0, axis)), inner = sizeOf(node.shape.slice(axis + 1));
      argsortLines(ins[0]!, 0, out, 0, outer, node.shape[axis]!, inner);
      return out;
    }
    case "matmul": return matmulKernel(node, ins[0]!, ins[1]!);
    case "cholesky": return choleskyKernel(node, ins[0]!);
    case "triangular_solve": return triangularSolveKernel(node, ins[0]!, ins[1]!);
    case "solve": return solveKernel(node, ins[0]!, ins[1]!);
    case "slogdet": return perMatrix(node, ins[0]!, 2, slogdetMatrix);
    case "eigh": return perMatrix(node, ins[0]!, node.shape[node.rank - 2]! * node.shape[node.rank - 1]!, eighMatrix);
    default:
      throw new GraphError(`reference interpreter: no kernel for op '${op}'`);
  }
}

function reduceKernel(node: Node, x: Float64Array): Float64Array {
  const axes = node.attrs.axes!;
  const inShape = node.inputs[0]!.shape;
  const out = new Float64Array(node.size);
  const keptStrides = stridesOf(node.shape);
  const outIndexOf = (idx: readonly number[]) => {
    let f = 0, k = 0;
    for (let i = 0; i < idx.length; i++) if (!axes.includes(i)) f += idx[i]! * keptStrides[k++]!;
    return f;
  };
  const op = node.op;
  out.fill(reduceIdentity(op, node.dtype));
  forEachIndex(inShape, (idx, f) => {
    const o = outIndexOf(idx);
    const v = x[f]!;
    if (op === "reduce_sum") out[o]! += v;
    else if (op === "reduce_prod") out[o]! *= v;
    else if (op === "reduce_max" || op === "reduce_logsumexp") out[o] = v > out[o]! || Number.isNaN(v) ? v : out[o]!;
    else out[o] = v < out[o]! || Number.isNaN(v) ? v : out[o]!;
  });
  if (op !== "reduce_logsumexp") return out;
  // Second pass: log Σ exp(x − m) + m, with m the max (an infinite or NaN max is the answer).
  const acc = new Float64Array(node.size);
  forEachIndex(inShape, (idx, f) => {
    const o = outIndexOf(idx);
    if (Number.isFinite(out[o]!)) acc[o]! += Math.exp(x[f]! - out[o]!);
  });
  for (let o = 0; o < out.length; o++) if (Number.isFinite(out[o]!)) out[o] = out[o]! + Math.log(acc[o]!);
  return out;
}

// Batch offsets of a [..., r, c] operand broadcast against the output's batch shape.
function batchOffsets(shape: readonly number[], batch: readonly number[]): Int32Array {
  const inner = shape[shape.length - 2]! * shape[shape.length - 1]!;
  const m = broadcastIndex(shape.slice(0, -2), batch);
  return m.map((v) => v * inner);
}

function matmulKernel(node: Node, a: Float64Array, b: Float64Array): Float64Array {
  const [A, B] = node.inputs as [Node, Node];
  const n = A.shape[A.rank - 2]!, k = A.shape[A.rank - 1]!, m = B.shape[B.rank - 1]!;
  const batch = node.shape.slice(0, -2);
  const oa = batchOffsets(A.shape, batch), ob = batchOffsets(B.shape, batch);
  const out = new Float64Array(node.size);
  for (let t = 0; t < oa.length; t++) {
    for (let i = 0; i < n; i++)
      for (let j = 0; j < m; j++) {
        let s = 0;
        for (let l = 0; l < k; l++) s += a[oa[t]! + i * k + l]! * b[ob[t]! + l * m + j]!;
        out[t * n * m + i * m + j] = s;
      }
  }
  return out;
}

function choleskyKernel(node: Node, a: Float64Array): Float64Array {
  const n = node.shape[node.rank - 1]!;
  const out = new Float64Array(node.size);
  const count = sizeOf(node.shape.slice(0, -2));
  for (let t = 0; t < count; t++) {
    const o = t * n * n;
    for (let j = 0; j < n; j++) {
      let d = a[o + j * n + j]!;
      for (let k = 0; k < j; k++) d -= out[o + j * n + k]! ** 2;
      // A matrix that is not positive definite gives NaN, so a log density built on it is rejected, not wrong.
      const ljj = d > 0 ? Math.sqrt(d) : NaN;
      out[o + j * n + j] = ljj;
      for (let i = j + 1; i < n; i++) {
        let s = a[o + i * n + j]!;
        for (let k = 0; k < j; k++) s -= out[o + i * n + k]! * out[o + j * n + k]!;
        out[o + i * n + j] = s / ljj;
      }
    }
  }
  return out;
}

function triangularSolveKernel(node: Node, l: Float64Array, b: Float64Array): Float64Array {
  const [L, B] = node.inputs as [Node, Node];
  const n = L.shape[L.rank - 1]!, m = B.shape[B.rank - 1]!;
  const batch = node.shape.slice(0, -2);
  const ol = batchOffsets(L.shape, batch), ob = batchOffsets(B.shape, batch);
  const lower = node.attrs.lower!, trans = node.attrs.transposeA!;
  // Solving with Lᵀ for lower L is solving with an upper matrix, and vice versa.
  const forward = lower !== trans;
  const at = (o: number, i: number, j: number) => (trans ? l[o + j * n + i]! : l[o + i * n + j]!);
  const out = new Float64Array(node.size);
  for (let t = 0; t < ol.length; t++) {
    const oo = t * n * m;
    for (let c = 0; c < m; c++) {
      for (let s = 0; s < n; s++) {
        const i = forward ? s : n - 1 - s;
        let v = b[ob[t]! + i * m + c]!;
        for (let r = 0; r < s; r++) {
          const j = forward ? r : n - 1 - r;
          v -= at(ol[t]!, i, j) * out[oo + j * m + c]!;
        }
        out[oo + i * m + c] = v / at(ol[t]!, i, i);
      }
    }
  }
  return out;
}

function solveKernel(node: Node, a: Float64Array, b: Float64Array): Float64Array {
  const [A, B] = node.inputs as [Node, Node];
  const n = A.shape[A.rank - 1]!, m = B.shape[B.rank - 1]!;
  const batch = node.shape.slice(0, -2);
  const oa = batchOffsets(A.shape, batch), ob = batchOffsets(B.shape, batch);
  const out = new Float64Array(node.size);
  for (let t = 0; t < oa.length; t++) luSolveMatrix(a, oa[t]!, b, ob[t]!, out, t * n * m, n, m);
  return out;
}

// One output block of `per` values for each square matrix of the input's batch (slogdet, eigh).
function perMatrix(
  node: Node, a: Float64Array, per: number, f: (a: Float64Array, ao: number, out: Float64Array, oo: number, n: number) => void,
): Float64Array {
  const X = node.inputs[0]!;
  const n = X.shape[X.rank - 1]!;
  const out = new Float64Array(node.size);
  const count = sizeOf(X.shape.slice(0, -2));
  for (let t = 0; t < count; t++) f(a, t * n * n, out, t * per, n);
  return out;
}
