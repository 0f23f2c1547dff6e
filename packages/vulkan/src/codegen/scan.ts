import { sizeOf, stridesOf, type Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { unitWriter, type UnitContext } from "./units.ts";

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

  const sched = schedule(body.outputs);
  const localName = (n: Node) => `${sid}_l${n.id}`;
  const locals = new Set(sched.kernels.filter((n) => n.op !== "scan"));
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  for (const n of sched.order) if (n.op === "tuple_get") locals.add(n);

  const bodyStorage: Storage = {
    read(n, idx, sc) {
      if (n.op === "arg" && isBodyArg(n, body.outputs)) {
        const a = n.attrs.index!;
        if (a < body.nCarry) return `${carryName(a)}[${flatten(n.shape, idx)}]`;
        if (a < body.nCarry + body.nX) return r.value(xNodes[a - body.nCarry]!, [t, ...idx], sc);
        return r.value(constNodes[a - body.nCarry - body.nX]!, idx, sc);
      }
      if (locals.has(n)) return `${localName(n)}[${flatten(n.shape, idx)}]`;
      return outer.read(n, idx, sc);
    },
    write(n, flat, value) {
      return `${localName(n)}[${flat}] = ${value};`;
    },
  };
  const bodyCtx: UnitContext = {
    r: new ExprRenderer(bodyStorage, r),
    storage: bodyStorage,
    scan: (inner, sc) => renderScan(inner, sc, bodyCtx, tupleUsers.get(inner) ?? []),
  };
  for (const n of locals) step.emit(`${glslType(n.dtype)} ${localName(n)}[${Math.max(1, n.size)}];`);
  for (const k of sched.kernels) {
    const w = unitWriter(k);
    if (w.units === 1) {
      const one = step.child();
      w.emit("0", one, bodyCtx);
      step.block("", one);
    } else {
      const loop = step.child();
      const u = r.fresh("u");
      w.emit(u, loop, bodyCtx);
      step.block(`for (int ${u} = 0; ${u} < ${w.units}; ${u}++)`, loop);
    }
  }
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
  next.forEach((tmp, k) => {
    const cp = step.child();
    const i = r.fresh("i");
    cp.emit(`${carryName(k)}[${i}] = ${tmp}[${i}];`);
    step.block(`for (int ${i} = 0; ${i} < ${outs[k]!.size}; ${i}++)`, cp);
  });
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

// The args of this body are the arg leaves reachable from its outputs (nested bodies have their own).
const bodyArgCache = new WeakMap<readonly Node[], Set<Node>>();
function isBodyArg(n: Node, outputs: readonly Node[]): boolean {
  let set = bodyArgCache.get(outputs);
  if (!set) {
    set = new Set(schedule(outputs).leaves.filter((l) => l.op === "arg"));
    bodyArgCache.set(outputs, set);
  }
  return set.has(n);
}

function unflattenLocal(shape: readonly number[], i: string): string[] {
  const st = stridesOf(shape);
  return shape.map((d, a) => (d === 1 ? "0" : a === 0 ? `(${i})/${st[a]}` : `((${i})/${st[a]})%${d}`));
}
