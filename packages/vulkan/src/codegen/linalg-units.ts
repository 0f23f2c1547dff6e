import { GraphError, type DType, type Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { broadcastIndex, flatten, unflatten } from "./index-math.ts";
import type { Scope } from "./scope.ts";
import { selfRead } from "./storage.ts";
import type { UnitWriter } from "./unit-writer.ts";

/**
 * General linear algebra as GLSL units, a line-by-line port of @ppl/tensor's cpu/linalg.ts (the
 * CPU backends' one kernel), so that both pick the same pivots and rotations: solve (a unit per
 * right-hand column: Gaussian elimination of [A | b] with partial pivoting, A copied into a private
 * array, b eliminated in place in the output column), slogdet (a unit per matrix: the same
 * elimination, accumulating the sign and log|u_kk|) and eigh (a unit per matrix: cyclic Jacobi on
 * private copies of (A + Aᵀ)/2 and of V, then the ranks of the eigenvalues place each column).
 * A unit holds n² values (eigh 2n²) in private memory: fine at posterior sizes (n up to ~50).
 */

/** Most Jacobi sweeps, as on the CPU (cpu/linalg.ts's JACOBI_MAX_SWEEPS). */
const MAX_SWEEPS = 30;

// The convergence threshold's epsilon is that of the precision the shader computes in.
const epsOf = (dtype: DType) => (dtype === "f32" ? 2 ** -23 : 2 ** -52);

// The number of matrices (or entries) of a shape.
const count = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

// A private array of at least one element (GLSL has no empty arrays).
function privateArray(scope: Scope, T: string, name: string, size: number): void {
  scope.emit(`${T} ${name}[${Math.max(1, size)}];`);
}

/** Loop iterations one unit of these ops may run (an upper bound, with every Jacobi sweep taken), for drivers that cap them. */
export function linalgLoopIterations(node: Node): number {
  if (node.op !== "solve" && node.op !== "slogdet" && node.op !== "eigh") return 0;
  const n = node.inputs[0]!.shape[node.inputs[0]!.rank - 1]!;
  const lu = n + n * n + n * (n + 1) + (n * (n + 1) * (2 * n + 1)) / 6 + n * n;
  switch (node.op) {
    case "solve": return lu + 2 * n + n * n;
    case "slogdet": return lu;
    case "eigh": return 2 * (n + n * n) + MAX_SWEEPS * (1 + n + (n * (n - 1)) / 2 * (n + 1)) + n * (3 * n + 1);
  }
}

/**
 * Refuse, at plan time, a solve, log-determinant or eigendecomposition whose loops could run past
 * the driver's cap on loop iterations (llvmpipe ends a shader's loops after 65,535): the result
 * would be silently wrong, so the error names the order and the way out.
 */
export function checkLinalgLoopBudget(nodes: readonly Node[], maxLoopIterations: number): void {
  if (!Number.isFinite(maxLoopIterations)) return;
  for (const n of nodes) {
    const loops = linalgLoopIterations(n);
    if (loops > maxLoopIterations) {
      const order = n.inputs[0]!.shape[n.inputs[0]!.rank - 1]!;
      throw new GraphError(
        `${n.op} of order ${order} may run ${Math.round(loops)} loop iterations in one thread, more than the ${maxLoopIterations} this driver (llvmpipe) runs before cutting loops short: ` +
          `run it on a GPU or on the CPU backend, or use smaller matrices`,
      );
    }
  }
}

/** solve: one unit per (batch matrix, right-hand column). */
export function solveUnits(node: Node): UnitWriter {
  const [A, B] = node.inputs as [Node, Node];
  const n = A.shape[A.rank - 1]!;
  const m = node.shape[node.rank - 1]!;
  const batchShape = node.shape.slice(0, -2);
  const T = glslType(node.dtype);
  return {
    units: count(batchShape) * m,
    emit(u, scope, { r, storage }) {
      const bIdx = unflatten(batchShape, `(${u})/${m}`);
      const c = `(${u})%${m}`;
      const ab = broadcastIndex(A.shape.slice(0, -2), bIdx);
      const bb = broadcastIndex(B.shape.slice(0, -2), bIdx);
      // The right-hand column is eliminated in place in the output column.
      const X = (i: string, sc: Scope) => selfRead(node, storage, [...bIdx, i, c], sc);
      const setX = (i: string, v: string) => storage.write(node, flatten(node.shape, [...bIdx, i, c]), v);
      const e = elimination(node.dtype, n, r.fresh.bind(r));
      privateArray(scope, T, e.w, n * n);
      const { w, i, j, k, p } = e;
      const copy = scope.child();
      copy.emit(`${w}[${i} * ${n} + ${j}] = ${r.value(A, [...ab, i, j], copy)};`);
      scope.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++) for (int ${j} = 0; ${j} < ${n}; ${j}++)`, copy);
      const rhs = scope.child();
      rhs.emit(setX(i, r.value(B, [...bb, i, c], rhs)));
      scope.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++)`, rhs);
      const step = scope.child();
      const yk = r.fresh("yk");
      eliminationStep(step, e, {
        swap(sc) {
          const t = r.fresh("t");
          sc.emit(`${T} ${t} = ${X(k, sc)};`);
          sc.emit(setX(k, X(p, sc)));
          sc.emit(setX(p, t));
        },
        beforeRows: (sc) => sc.emit(`${T} ${yk} = ${X(k, sc)};`),
        row: (sc, l) => sc.emit(setX(i, `${X(i, sc)} - ${l} * ${yk}`)),
      });
      scope.block(`for (int ${k} = 0; ${k} < ${n}; ${k}++)`, step);
      // Back substitution from the last row, the terms from the last column, as on the CPU.
      const [s, q, v] = [r.fresh("s"), r.fresh("q"), r.fresh("v")];
      const back = scope.child();
      back.emit(`int ${i} = ${n - 1} - ${s};`);
      back.emit(`${T} ${v} = ${X(i, back)};`);
      const term = back.child();
      term.emit(`int ${j} = ${n - 1} - ${q};`);
      term.emit(`${v} -= ${w}[${i} * ${n} + ${j}] * ${X(j, term)};`);
      back.block(`for (int ${q} = 0; ${q} < ${s}; ${q}++)`, term);
      back.emit(setX(i, `${v} / ${w}[${i} * ${n} + ${i}]`));
      scope.block(`for (int ${s} = 0; ${s} < ${n}; ${s}++)`, back);
    },
  };
}

/** The names of one elimination: the private matrix w (n×n), the loop indices, the element type. */
interface Elimination {
  readonly w: string;
  readonly n: number;
  readonly dtype: DType;
  readonly k: string;
  readonly i: string;
  readonly j: string;
  readonly p: string;
  readonly fresh: (prefix?: string) => string;
}

function elimination(dtype: DType, n: number, fresh: (prefix?: string) => string): Elimination {
  return { w: fresh("w"), n, dtype, k: fresh("k"), i: fresh("i"), j: fresh("j"), p: fresh("p"), fresh };
}

/** What a caller adds to an elimination step: at the row swap, before the row updates, and in each row's update (given its multiplier). */
interface StepHooks {
  swap?(sc: Scope): void;
  beforeRows?(sc: Scope): void;
  row?(sc: Scope, l: string): void;
}

/**
 * Step k of LU with partial pivoting on the private array w, into `step` (the body of the loop over
 * k), as cpu/linalg.ts's luInPlace: the pivot search (the first largest |w_ik|, i ≥ k), the row swap,
 * then, for a nonzero pivot, the multipliers and the update of the rows below. Returns the pivot's name.
 */
function eliminationStep(step: Scope, e: Elimination, hooks: StepHooks = {}): string {
  const { w, n, k, i, j, p, fresh } = e;
  const T = glslType(e.dtype);
  const [best, av, t, d, l] = [fresh("best"), fresh("av"), fresh("t"), fresh("d"), fresh("l")];
  step.emit(`int ${p} = ${k};`);
  step.emit(`${T} ${best} = abs(${w}[${k} * ${n} + ${k}]);`);
  const search = step.child();
  search.emit(`${T} ${av} = abs(${w}[${i} * ${n} + ${k}]);`);
  search.emit(`if (${av} > ${best}) { ${best} = ${av}; ${p} = ${i}; }`);
  step.block(`for (int ${i} = ${k} + 1; ${i} < ${n}; ${i}++)`, search);
  const swap = step.child();
  const sw = swap.child();
  sw.emit(`${T} ${t} = ${w}[${k} * ${n} + ${j}];`);
  sw.emit(`${w}[${k} * ${n} + ${j}] = ${w}[${p} * ${n} + ${j}];`);
  sw.emit(`${w}[${p} * ${n} + ${j}] = ${t};`);
  swap.block(`for (int ${j} = 0; ${j} < ${n}; ${j}++)`, sw);
  hooks.swap?.(swap);
  step.block(`if (${p} != ${k})`, swap);
  step.emit(`${T} ${d} = ${w}[${k} * ${n} + ${k}];`);
  // A zero pivot leaves its column alone (LAPACK's getrf): the later division by it gives ±inf or NaN.
  const rows = step.child();
  hooks.beforeRows?.(rows);
  const row = rows.child();
  row.emit(`${T} ${l} = ${w}[${i} * ${n} + ${k}] / ${d};`);
  row.emit(`${w}[${i} * ${n} + ${k}] = ${l};`);
  const upd = row.child();
  upd.emit(`${w}[${i} * ${n} + ${j}] = ${w}[${i} * ${n} + ${j}] - ${l} * ${w}[${k} * ${n} + ${j}];`);
  row.block(`for (int ${j} = ${k} + 1; ${j} < ${n}; ${j}++)`, upd);
  hooks.row?.(row, l);
  rows.block(`for (int ${i} = ${k} + 1; ${i} < ${n}; ${i}++)`, row);
  step.block(`if (${d} != ${literal(0, e.dtype)})`, rows);
  return d;
}

/** slogdet: one unit per matrix, writing [sign, log|det|]. */
export function slogdetUnits(node: Node): UnitWriter {
  const A = node.inputs[0]!;
  const n = A.shape[A.rank - 1]!;
  const batchShape = A.shape.slice(0, -2);
  const T = glslType(node.dtype);
  const lit = (v: number) => literal(v, node.dtype);
  return {
    units: count(batchShape),
    emit(u, scope, { r, storage }) {
      const b = unflatten(batchShape, u);
      const e = elimination(node.dtype, n, r.fresh.bind(r));
      privateArray(scope, T, e.w, n * n);
      const { w, i, j, k } = e;
      const copy = scope.child();
      copy.emit(`${w}[${i} * ${n} + ${j}] = ${r.value(A, [...b, i, j], copy)};`);
      scope.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++) for (int ${j} = 0; ${j} < ${n}; ${j}++)`, copy);
      const [sign, logAbs] = [r.fresh("sign"), r.fresh("logabs")];
      scope.emit(`${T} ${sign} = ${lit(1)};`);
      scope.emit(`${T} ${logAbs} = ${lit(0)};`);
      const step = scope.child();
      // Sign flips are exact, so flipping at each swap equals the CPU's parity times the diagonal's signs.
      const d = eliminationStep(step, e, { swap: (sc) => sc.emit(`${sign} = -${sign};`) });
      step.emit(`${sign} = ${d} > ${lit(0)} ? ${sign} : ${d} < ${lit(0)} ? -${sign} : ${d} == ${lit(0)} ? ${lit(0)} : ${lit(NaN)};`);
      step.emit(`${logAbs} += ppl_log(abs(${d}));`);
      scope.block(`for (int ${k} = 0; ${k} < ${n}; ${k}++)`, step);
      scope.emit(storage.write(node, flatten(node.shape, [...b, "0"]), sign));
      scope.emit(storage.write(node, flatten(node.shape, [...b, "1"]), logAbs));
    },
  };
}

/** eigh: one unit per matrix, writing the eigenvectors (rows 0…n−1, as columns) and the eigenvalues (row n), ascending. */
export function eighUnits(node: Node): UnitWriter {
  const A = node.inputs[0]!;
  const n = A.shape[A.rank - 1]!;
  const batchShape = A.shape.slice(0, -2);
  const T = glslType(node.dtype);
  const lit = (v: number) => literal(v, node.dtype);
  return {
    units: count(batchShape),
    emit(u, scope, { r, storage }) {
      const b = unflatten(batchShape, u);
      const put = (i: string, j: string, v: string) => storage.write(node, flatten(node.shape, [...b, i, j]), v);
      const [w, v] = [r.fresh("w"), r.fresh("v")];
      privateArray(scope, T, w, n * n);
      privateArray(scope, T, v, n * n);
      const [i, j, k, p, q] = [r.fresh("i"), r.fresh("j"), r.fresh("k"), r.fresh("p"), r.fresh("q")];
      const [scale, finite] = [r.fresh("scale"), r.fresh("finite")];
      scope.emit(`${T} ${scale} = ${lit(0)};`);
      scope.emit(`bool ${finite} = true;`);
      const copy = scope.child();
      const x = r.fresh("x");
      copy.emit(`${T} ${x} = (${r.value(A, [...b, i, j], copy)} + ${r.value(A, [...b, j, i], copy)}) * ${lit(0.5)};`);
      copy.emit(`${w}[${i} * ${n} + ${j}] = ${x};`);
      copy.emit(`${finite} = ${finite} && !ppl_isnan(${x}) && !ppl_isinf(${x});`);
      copy.emit(`${scale} = abs(${x}) > ${scale} ? abs(${x}) : ${scale};`);
      copy.emit(`${v}[${i} * ${n} + ${j}] = ${i} == ${j} ? ${lit(1)} : ${lit(0)};`);
      scope.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++) for (int ${j} = 0; ${j} < ${n}; ${j}++)`, copy);

      // A non-finite entry: NaN throughout, as on the CPU.
      const nan = scope.child();
      nan.emit(put(i, j, lit(NaN)));
      scope.block(`if (!${finite}) for (int ${i} = 0; ${i} <= ${n}; ${i}++) for (int ${j} = 0; ${j} < ${n}; ${j}++)`, nan);

      const body = scope.child();
      const [sweep, rotated] = [r.fresh("sweep"), r.fresh("rotated")];
      const sw = body.child();
      sw.emit(`bool ${rotated} = false;`);
      const pair = sw.child();
      const [apq, app, aqq, fl] = [r.fresh("apq"), r.fresh("app"), r.fresh("aqq"), r.fresh("fl")];
      pair.emit(`${T} ${apq} = ${w}[${p} * ${n} + ${q}], ${app} = ${w}[${p} * ${n} + ${p}], ${aqq} = ${w}[${q} * ${n} + ${q}];`);
      pair.emit(`${T} ${fl} = sqrt(abs(${app})) * sqrt(abs(${aqq}));`);
      pair.emit(`if (abs(${apq}) <= ${lit(epsOf(node.dtype))} * (${fl} > ${scale} ? ${fl} : ${scale})) continue;`);
      pair.emit(`${rotated} = true;`);
      const [theta, t0, t, c, s] = [r.fresh("theta"), r.fresh("t0"), r.fresh("t"), r.fresh("c"), r.fresh("s")];
      // The rotation that zeroes a_pq, through its smaller angle (Rutishauser's formulas).
      pair.emit(`${T} ${theta} = (${aqq} - ${app}) / (${lit(2)} * ${apq});`);
      pair.emit(`${T} ${t0} = ${lit(1)} / (abs(${theta}) + sqrt(${theta} * ${theta} + ${lit(1)}));`);
      pair.emit(`${T} ${t} = ${theta} < ${lit(0)} ? -${t0} : ${t0};`);
      pair.emit(`${T} ${c} = ${lit(1)} / sqrt(${t} * ${t} + ${lit(1)});`);
      pair.emit(`${T} ${s} = ${t} * ${c};`);
      pair.emit(`${w}[${p} * ${n} + ${p}] = ${app} - ${t} * ${apq};`);
      pair.emit(`${w}[${q} * ${n} + ${q}] = ${aqq} + ${t} * ${apq};`);
      pair.emit(`${w}[${p} * ${n} + ${q}] = ${lit(0)};`);
      pair.emit(`${w}[${q} * ${n} + ${p}] = ${lit(0)};`);
      const rot = pair.child();
      const [g, h, gp, hq] = [r.fresh("g"), r.fresh("h"), r.fresh("gp"), r.fresh("hq")];
      const other = rot.child();
      other.emit(`${T} ${g} = ${w}[${k} * ${n} + ${p}], ${h} = ${w}[${k} * ${n} + ${q}];`);
      other.emit(`${T} ${gp} = ${c} * ${g} - ${s} * ${h}, ${hq} = ${s} * ${g} + ${c} * ${h};`);
      other.emit(`${w}[${k} * ${n} + ${p}] = ${gp}; ${w}[${p} * ${n} + ${k}] = ${gp};`);
      other.emit(`${w}[${k} * ${n} + ${q}] = ${hq}; ${w}[${q} * ${n} + ${k}] = ${hq};`);
      rot.block(`if (${k} != ${p} && ${k} != ${q})`, other);
      const [vg, vh] = [r.fresh("vg"), r.fresh("vh")];
      rot.emit(`${T} ${vg} = ${v}[${k} * ${n} + ${p}], ${vh} = ${v}[${k} * ${n} + ${q}];`);
      rot.emit(`${v}[${k} * ${n} + ${p}] = ${c} * ${vg} - ${s} * ${vh};`);
      rot.emit(`${v}[${k} * ${n} + ${q}] = ${s} * ${vg} + ${c} * ${vh};`);
      pair.block(`for (int ${k} = 0; ${k} < ${n}; ${k}++)`, rot);
      sw.block(`for (int ${p} = 0; ${p} < ${n - 1}; ${p}++) for (int ${q} = ${p} + 1; ${q} < ${n}; ${q}++)`, pair);
      sw.emit(`if (!${rotated}) break;`);
      body.block(`for (int ${sweep} = 0; ${sweep} < ${MAX_SWEEPS}; ${sweep}++)`, sw);

      // Rank of eigenvalue i in ascending order (ties by index), and the sign that makes the
      // eigenvector's largest entry positive.
      const out = body.child();
      const [d, rank, e, big, at, ax, flip] = [r.fresh("d"), r.fresh("rank"), r.fresh("e"), r.fresh("big"), r.fresh("at"), r.fresh("ax"), r.fresh("flip")];
      out.emit(`${T} ${d} = ${w}[${i} * ${n} + ${i}];`);
      out.emit(`int ${rank} = 0;`);
      const cmp = out.child();
      cmp.emit(`${T} ${e} = ${w}[${j} * ${n} + ${j}];`);
      cmp.emit(`if (${e} < ${d} || (${e} == ${d} && ${j} < ${i})) ${rank}++;`);
      out.block(`for (int ${j} = 0; ${j} < ${n}; ${j}++)`, cmp);
      out.emit(`${T} ${big} = ${lit(0)};`);
      out.emit(`int ${at} = 0;`);
      const mx = out.child();
      mx.emit(`${T} ${ax} = abs(${v}[${k} * ${n} + ${i}]);`);
      mx.emit(`if (${ax} > ${big}) { ${big} = ${ax}; ${at} = ${k}; }`);
      out.block(`for (int ${k} = 0; ${k} < ${n}; ${k}++)`, mx);
      out.emit(`${T} ${flip} = ${v}[${at} * ${n} + ${i}] < ${lit(0)} ? ${lit(-1)} : ${lit(1)};`);
      const wr = out.child();
      wr.emit(put(k, rank, `${flip} * ${v}[${k} * ${n} + ${i}]`));
      out.block(`for (int ${k} = 0; ${k} < ${n}; ${k}++)`, wr);
      out.emit(put(`${n}`, rank, d));
      body.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++)`, out);
      scope.block(`if (${finite})`, body);
    },
  };
}
