import { GraphError, type Node } from "@ppl/tensor";
import { isLoop, isReduce, sizeOf, type LoopOp } from "@ppl/tensor/ir";
import { reduceUnits } from "./reduce/serial.ts";
import { glslType, literal } from "./glsl.ts";
import { broadcastIndex, flatten, unflatten } from "./index-math.ts";
import type { Scope } from "./scope.ts";
import { selfRead } from "./storage.ts";
import type { UnitContext, UnitWriter } from "./unit-writer.ts";
import { eighUnits, slogdetUnits, solveUnits } from "./linalg-units.ts";
import { scatterAddUnits } from "./scatter-units.ts";
import { argsortUnits } from "./sort-units.ts";

export type { UnitContext, UnitWriter } from "./unit-writer.ts";

/** The unit writer of a materialized node. */
export function unitWriter(node: Node): UnitWriter {
  if (isElementMap(node)) return mapUnits(node);
  if (isReduce(node.op)) return reduceUnits(node);
  if (isLoop(node.op)) return LOOP_UNITS[node.op](node);
  throw new GraphError(`codegen: no unit writer for ${node.op}`);
}

// The units of each loop op. Typed by op: a loop op added to the IR without its writer here fails to compile.
const LOOP_UNITS: Record<LoopOp, (node: Node) => UnitWriter> = {
  matmul: matmulUnits,
  cumsum: cumsumUnits,
  argsort: argsortUnits,
  scatter_add: scatterAddUnits,
  cholesky: choleskyUnits,
  triangular_solve: triangularSolveUnits,
  solve: solveUnits,
  slogdet: slogdetUnits,
  eigh: eighUnits,
  scan: (node) => ({ units: 1, emit: (_u, scope, ctx) => ctx.scan(node, scope) }),
};

/** True when a node's unit is one output element computed by one expression of its inputs (no loop): neither a reduction nor a loop op. */
export function isElementMap(node: Node): boolean {
  return !isReduce(node.op) && !isLoop(node.op);
}

function mapUnits(node: Node): UnitWriter {
  return {
    units: node.size,
    emit(u, scope, { r, storage }) {
      const v = r.compute(node, unflatten(node.shape, u), scope);
      scope.emit(storage.write(node, u, v));
    },
  };
}

function matmulUnits(node: Node): UnitWriter {
  const [A, B] = node.inputs as [Node, Node];
  const k = A.shape[A.rank - 1]!;
  const T = glslType(node.dtype);
  return {
    units: node.size,
    emit(u, scope, { r, storage }) {
      const idx = unflatten(node.shape, u);
      const batch = idx.slice(0, -2);
      const [i, j] = idx.slice(-2) as [string, string];
      const acc = r.fresh("acc");
      const l = r.fresh("l");
      scope.emit(`${T} ${acc} = ${literal(0, node.dtype)};`);
      const body = scope.child();
      const a = r.value(A, [...broadcastIndex(A.shape.slice(0, -2), batch), i, l], body);
      const b = r.value(B, [...broadcastIndex(B.shape.slice(0, -2), batch), l, j], body);
      body.emit(`${acc} += ${a} * ${b};`);
      scope.block(`for (int ${l} = 0; ${l} < ${k}; ${l}++)`, body);
      scope.emit(storage.write(node, u, acc));
    },
  };
}

function cumsumUnits(node: Node): UnitWriter {
  const axis = node.attrs.axis!;
  const n = node.shape[axis]!;
  const lineShape = node.shape.map((d, a) => (a === axis ? 1 : d));
  const T = glslType(node.dtype);
  return {
    units: sizeOf(lineShape),
    emit(u, scope, { r, storage }) {
      const base = unflatten(lineShape, u);
      const acc = r.fresh("acc");
      const s = r.fresh("s");
      scope.emit(`${T} ${acc} = ${literal(0, node.dtype)};`);
      const body = scope.child();
      const t = r.fresh("t");
      body.emit(`int ${t} = ${node.attrs.reverse ? `${n - 1} - ${s}` : s};`);
      const idx = [...base];
      idx[axis] = t;
      body.emit(`${acc} += ${r.value(node.inputs[0]!, idx, body)};`);
      body.emit(storage.write(node, flatten(node.shape, idx), acc));
      scope.block(`for (int ${s} = 0; ${s} < ${n}; ${s}++)`, body);
    },
  };
}

function choleskyUnits(node: Node): UnitWriter {
  const n = node.shape[node.rank - 1]!;
  const batchShape = node.shape.slice(0, -2);
  const T = glslType(node.dtype);
  return {
    units: sizeOf(batchShape),
    emit(u, scope, { r, storage }) {
      const b = unflatten(batchShape, u);
      const A = node.inputs[0]!;
      const at = (i: string, j: string) => [...b, i, j];
      const [i, j, k] = [r.fresh("i"), r.fresh("j"), r.fresh("k")];
      const zero = scope.child();
      zero.emit(storage.write(node, flatten(node.shape, at(i, j)), literal(0, node.dtype)));
      scope.block(`for (int ${i} = 0; ${i} < ${n}; ${i}++) for (int ${j} = ${i} + 1; ${j} < ${n}; ${j}++)`, zero);
      const col = scope.child();
      const d = r.fresh("d");
      col.emit(`${T} ${d} = ${r.value(A, at(j, j), col)};`);
      const dl = col.child();
      const ljk = selfRead(node, storage, at(j, k), dl);
      dl.emit(`${d} -= ${ljk} * ${ljk};`);
      col.block(`for (int ${k} = 0; ${k} < ${j}; ${k}++)`, dl);
      const ljj = r.fresh("ljj");
      // Not positive definite: NaN, so a log density built on it is rejected rather than wrong.
      col.emit(`${T} ${ljj} = ${d} > ${literal(0, node.dtype)} ? sqrt(${d}) : ${literal(NaN, node.dtype)};`);
      col.emit(storage.write(node, flatten(node.shape, at(j, j)), ljj));
      const row = col.child();
      const s = r.fresh("s");
      row.emit(`${T} ${s} = ${r.value(A, at(i, j), row)};`);
      const sl = row.child();
      sl.emit(`${s} -= ${selfRead(node, storage, at(i, k), sl)} * ${selfRead(node, storage, at(j, k), sl)};`);
      row.block(`for (int ${k} = 0; ${k} < ${j}; ${k}++)`, sl);
      row.emit(storage.write(node, flatten(node.shape, at(i, j)), `${s} / ${ljj}`));
      col.block(`for (int ${i} = ${j} + 1; ${i} < ${n}; ${i}++)`, row);
      scope.block(`for (int ${j} = 0; ${j} < ${n}; ${j}++)`, col);
    },
  };
}

function triangularSolveUnits(node: Node): UnitWriter {
  const [L, B] = node.inputs as [Node, Node];
  const n = L.shape[L.rank - 1]!;
  const m = node.shape[node.rank - 1]!;
  const batchShape = node.shape.slice(0, -2);
  const forward = node.attrs.lower! !== node.attrs.transposeA!;
  const trans = node.attrs.transposeA!;
  const T = glslType(node.dtype);
  return {
    units: sizeOf(batchShape) * m,
    emit(u, scope, { r, storage }) {
      const bIdx = unflatten(batchShape, `(${u})/${m}`);
      const c = `(${u})%${m}`;
      const lb = broadcastIndex(L.shape.slice(0, -2), bIdx);
      const bb = broadcastIndex(B.shape.slice(0, -2), bIdx);
      const Lat = (i: string, j: string, sc: Scope) => r.value(L, trans ? [...lb, j, i] : [...lb, i, j], sc);
      const [s, q] = [r.fresh("s"), r.fresh("q")];
      const row = scope.child();
      const i = r.fresh("i");
      row.emit(`int ${i} = ${forward ? s : `${n - 1} - ${s}`};`);
      const v = r.fresh("v");
      row.emit(`${T} ${v} = ${r.value(B, [...bb, i, c], row)};`);
      const inner = row.child();
      const j = r.fresh("j");
      inner.emit(`int ${j} = ${forward ? q : `${n - 1} - ${q}`};`);
      inner.emit(`${v} -= ${Lat(i, j, inner)} * ${selfRead(node, storage, [...bIdx, j, c], inner)};`);
      row.block(`for (int ${q} = 0; ${q} < ${s}; ${q}++)`, inner);
      row.emit(storage.write(node, flatten(node.shape, [...bIdx, i, c]), `${v} / ${Lat(i, i, row)}`));
      scope.block(`for (int ${s} = 0; ${s} < ${n}; ${s}++)`, row);
    },
  };
}

