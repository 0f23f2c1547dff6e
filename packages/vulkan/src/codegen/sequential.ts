import type { DType, Node } from "@ppl/tensor";
import { sizeOf, stridesOf } from "@ppl/tensor/ir";
import { ExprRenderer } from "./expr.ts";
import { convert, glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { unitWriter, type UnitContext } from "./units.ts";

/** Reads a graph's leaves (params, data, args, array constants) for a single-thread program; undefined defers to the outer storage. */
export type LeafReader = (node: Node, idx: readonly string[], scope: Scope) => string | undefined;

/** A graph rendered for one thread: read its outputs (and any node) through `r`. */
export interface SequentialProgram {
  readonly r: ExprRenderer;
  readonly storage: Storage;
  /** Elements placed in the spill area (0 without one). */
  readonly spilled: number;
}

/**
 * Where a single-thread program keeps materialized nodes too large for private arrays: drivers
 * reject shaders whose private memory grows large, so values above `limit` elements go to the
 * thread's slice of a global buffer, `at(offset, flat)` naming an element of it.
 */
export interface Spill {
  readonly limit: number;
  readonly dtype: DType;
  at(offset: number, flat: string): string;
}

/**
 * Render a whole graph as straight-line code for ONE thread: every materialized node becomes a
 * local array filled by a loop over its units, elementwise work is inlined as usual. This is how
 * scan bodies run, and how a one-chain log density runs inside a thread-per-chain sampler.
 */
export function renderSequential(
  outputs: readonly Node[],
  leaves: LeafReader,
  scope: Scope,
  parent: ExprRenderer | undefined,
  outer: Storage | undefined,
  prefix: string,
  spill?: Spill,
): SequentialProgram {
  const sched = schedule(outputs);
  // Locals are numbered by their place in the schedule, not by node id, so that the generated source
  // does not change with how many nodes were made before this graph (golden kernels stay stable).
  const number = new Map(sched.order.map((n, i) => [n, i]));
  const localName = (n: Node) => `${prefix}_l${number.get(n)}`;
  const locals = new Set<Node>();
  const spilled = new Map<Node, number>();
  let spillSize = 0;
  const place = (n: Node) => {
    if (spill && n.size > spill.limit) {
      spilled.set(n, spillSize);
      spillSize += n.size;
    } else locals.add(n);
  };
  for (const n of sched.kernels) if (n.op !== "scan") place(n);
  for (const n of sched.order) if (n.op === "tuple_get") place(n);
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  const storage: Storage = {
    read(n, idx, sc) {
      if (n.op === "param" || n.op === "data" || n.op === "arg" || (n.op === "const" && typeof n.attrs.value !== "number")) {
        const e = leaves(n, idx, sc);
        if (e !== undefined) return e;
      }
      if (locals.has(n)) return `${localName(n)}[${flatten(n.shape, idx)}]`;
      const off = spilled.get(n);
      if (off !== undefined && spill) return convert(spill.at(off, flatten(n.shape, idx)), spill.dtype, n.dtype);
      return outer?.read(n, idx, sc);
    },
    write(n, flat, value) {
      const off = spilled.get(n);
      if (off !== undefined && spill) return `${spill.at(off, flat)} = ${convert(value, n.dtype, spill.dtype)};`;
      return `${localName(n)}[${flat}] = ${value};`;
    },
  };
  const r = new ExprRenderer(storage, parent);
  const ctx: UnitContext = { r, storage, scan: (s, sc) => renderScan(s, sc, ctx, tupleUsers.get(s) ?? []) };
  for (const n of locals) scope.emit(`${glslType(n.dtype)} ${localName(n)}[${Math.max(1, n.size)}];`);
  for (const k of sched.kernels) {
    const w = unitWriter(k);
    const body = scope.child();
    if (w.units === 1) {
      w.emit("0", body, ctx);
      scope.block("", body);
    } else {
      const u = r.fresh("u");
      w.emit(u, body, ctx);
      scope.block(`for (int ${u} = 0; ${u} < ${w.units}; ${u}++)`, body);
    }
  }
  return { r, storage, spilled: spillSize };
}

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
