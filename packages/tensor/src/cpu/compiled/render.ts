import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { isLoop, OP_TRAITS, type LoopOp, type MovementOp, type Op } from "../../ir/ops.ts";
import { fmt, stridesOf } from "../../ir/shape.ts";
import { sumExpr, type ArrayRef, type RenderContext, type StridedRef } from "./context.ts";
import { isContiguous } from "./layout.ts";
import { renderCumsum, renderConcat, renderGather, renderPad, renderScatterAdd } from "./indexing.ts";
import { renderArgsort } from "./sort.ts";
import { renderCholesky, renderPerMatrix, renderSolve, renderTriangularSolve } from "./linalg.ts";
import { renderLoopKernel } from "./loops.ts";
import { renderMatmul } from "./matmul.ts";
import { renderScan } from "./scan.ts";
import type { Kernel, Schedule, Scope } from "./loop-nest.ts";
import { isLeaf, schedule } from "./schedule.ts";

/**
 * Emits the JavaScript of a whole graph: one `run(IN, INOFF, OUT, OUTOFF, T, C)` function whose
 * body runs the scheduler's kernels in order. IN/OUT hold the bound inputs and the output arrays
 * (with element offsets, so a scan can point its body at one step of a stacked array), T the
 * executable's preallocated buffers, C the instances of child programs (scan bodies). Special
 * functions arrive as `F` and constant arrays as `K`, bound when the function is created.
 */

/** Everything needed to build and run a generated program. */
export interface ProgramPlan {
  /** The body of `run`. */
  readonly source: string;
  /** IN slot → the leaf bound there (params and data; or a scan body's args by index). */
  readonly inputs: readonly (Node | undefined)[];
  /** OUT slot → output node. */
  readonly outputs: readonly Node[];
  /** T slot sizes, in doubles. */
  readonly temps: readonly number[];
  /** K: constant arrays. */
  readonly consts: readonly Float64Array[];
  /** Scan bodies, as programs of their own. */
  readonly children: readonly ProgramPlan[];
  /** Loop nests, children included. */
  readonly kernels: number;
}

/** Plan and render `outputs`; `nArgs` is given for a scan body, whose inputs are its args by index. */
export function renderProgram(outputs: readonly Node[], nArgs?: number): ProgramPlan {
  const sched = schedule(outputs);
  const local = new Map(sched.order.map((n, i) => [n, i] as const));
  const id = (n: Node) => local.get(n)!;
  const users = new Map<Node, Node[]>();
  for (const n of sched.order) for (const x of n.inputs) (users.get(x) ?? users.set(x, []).get(x)!).push(n);

  const decls: string[] = [];
  const inputs: (Node | undefined)[] = nArgs === undefined ? [] : new Array<Node | undefined>(nArgs).fill(undefined);
  const temps: number[] = [];
  const consts: Float64Array[] = [];
  const children: ProgramPlan[] = [];
  const sources = new Map<Node, ArrayRef>();
  const targets = new Map<Node, ArrayRef>();
  const describe = (n: Node) => `n${id(n)} ${n.op}${n.attrs.name !== undefined ? ` '${n.attrs.name}'` : ""} ${n.dtype}${fmt(n.shape)}`;

  // Output slots come first so that outputs are written in place.
  const firstSlot = new Map<Node, number>();
  outputs.forEach((o, j) => {
    if (firstSlot.has(o)) return;
    firstSlot.set(o, j);
    const name = isLeaf(o) ? `r${id(o)}` : `b${id(o)}`;
    decls.push(`const ${name} = OUT[${j}], ${name}o = OUTOFF[${j}]; // output ${j}: ${describe(o)}`);
    targets.set(o, { name, offset: `${name}o` });
  });
  for (const n of sched.order) {
    const name = `b${id(n)}`;
    if (n.op === "param" || n.op === "data" || n.op === "arg") {
      let slot: number;
      if (n.op === "arg") {
        if (nArgs === undefined) throw new GraphError(`arg ${n.attrs.index} is unbound (an arg outside a scan body)`);
        slot = n.attrs.index!;
      } else {
        if (nArgs !== undefined) throw new GraphError(`compiled CPU: ${n.op} '${n.attrs.name}' inside a scan body`);
        slot = inputs.length;
      }
      inputs[slot] = n;
      decls.push(`const ${name} = IN[${slot}], ${name}o = INOFF[${slot}]; // ${describe(n)}`);
      sources.set(n, { name, offset: `${name}o` });
    } else if (n.op === "const" && typeof n.attrs.value !== "number") {
      decls.push(`const ${name} = K[${consts.length}]; // ${describe(n)}`);
      consts.push(n.attrs.value as Float64Array);
      sources.set(n, { name, offset: "0" });
    } else if (sched.written.has(n) && !targets.has(n) && !isLeaf(n)) {
      decls.push(`const ${name} = T[${temps.length}]; // ${describe(n)}`);
      temps.push(n.size);
      targets.set(n, { name, offset: "0" });
    }
    if (!isLeaf(n) && targets.has(n)) sources.set(n, targets.get(n)!);
  }

  const ctx: RenderContext = {
    schedule: sched,
    id,
    source: (n) => sources.get(n) ?? fail(`${describe(n)} has no buffer`),
    target: (n) => targets.get(n) ?? fail(`${describe(n)} has no output buffer`),
    contiguous: (n) => {
      const l = sched.layout(n);
      if (l.kind === "lit") return { name: ctx.constArray(new Float64Array(n.size).fill(l.value), `${describe(n)} (filled)`), offset: "0" };
      if (!isContiguous(l) && l.shape.some((d) => d > 1)) fail(`${describe(n)} is not contiguous`);
      const s = ctx.source(l.source);
      return { name: s.name, offset: sumExpr(s.offset, l.start) };
    },
    strided: (n): StridedRef => {
      const l = sched.layout(n);
      if (l.kind === "lit") return { ...ctx.contiguous(n), shape: n.shape, strides: stridesOf(n.shape) };
      const s = ctx.source(l.source);
      return { name: s.name, offset: sumExpr(s.offset, l.start), shape: l.shape, strides: l.strides };
    },
    constArray: (values, why) => {
      const name = `k${consts.length}`;
      decls.push(`const ${name} = K[${consts.length}]; // ${why}`);
      consts.push(values);
      return name;
    },
    scratch: (size, why) => {
      const name = `s${temps.length}`;
      decls.push(`const ${name} = T[${temps.length}]; // ${why}`);
      temps.push(size);
      return name;
    },
    child: (outs, n) => {
      children.push(renderProgram(outs, n));
      return children.length - 1;
    },
  };

  const body: string[] = [];
  sched.kernels.forEach((k, i) => {
    body.push("", `// kernel ${i}: ${kernelTitle(k, sched, describe, id)}`);
    // Line by line: a spread of a kernel of tens of thousands of lines would overflow the call stack.
    body.push("{");
    for (const l of kernelLines(k, ctx, users.get(k.root) ?? [])) body.push("  " + l);
    body.push("}");
  });
  // An output listed twice gets its own copy.
  outputs.forEach((o, j) => {
    const first = firstSlot.get(o)!;
    if (first === j) return;
    const src = targets.get(o)!;
    body.push(`for (let f = 0; f < ${o.size}; f++) OUT[${j}][OUTOFF[${j}] + f] = ${src.name}[${sumExpr(src.offset, "f")}]; // output ${j} repeats output ${first}`);
  });
  const header = `// ${sched.kernels.length} kernel(s) for ${sched.order.length} nodes; outputs: ${outputs.map((o) => `n${id(o)}`).join(", ")}`;
  const source = [header, ...decls, ...body].join("\n");
  const kernels = sched.kernels.length + children.reduce((s, c) => s + c.kernels, 0);
  return { source, inputs, outputs, temps, consts, children, kernels };
}

function fail(msg: string): never {
  throw new GraphError(`compiled CPU: ${msg} (scheduler bug)`);
}

function kernelLines(k: Kernel, ctx: RenderContext, users: readonly Node[]): string[] {
  if (k.kind === "loop") return renderLoopKernel(k, ctx);
  const n = k.root;
  if (isLoop(n.op) || isMovement(n.op)) return OP_KERNELS[n.op](n, ctx, users);
  throw new GraphError(`compiled CPU: no kernel for op '${n.op}'`);
}

// The op kernels: each loop op's and movement's hand-written loops. Typed by op: a loop op or
// movement added to the IR without its kernel here fails to compile.
const OP_KERNELS: Record<LoopOp | MovementOp, (n: Node, ctx: RenderContext, users: readonly Node[]) => string[]> = {
  matmul: renderMatmul,
  cholesky: renderCholesky,
  triangular_solve: renderTriangularSolve,
  solve: renderSolve,
  slogdet: renderPerMatrix,
  eigh: renderPerMatrix,
  gather: renderGather,
  scatter_add: renderScatterAdd,
  cumsum: renderCumsum,
  argsort: renderArgsort,
  concat: renderConcat,
  pad: renderPad,
  scan: renderScan,
};

const isMovement = (op: Op): op is MovementOp => OP_TRAITS[op].class === "movement";

// "loop over [N]; fuses n3 exp, n4 add" — what a reader needs to match code to graph.
function kernelTitle(k: Kernel, sched: Schedule, describe: (n: Node) => string, id: (n: Node) => number): string {
  if (k.kind === "op") return `${describe(k.root)} = ${k.root.op}(${k.root.inputs.map((x) => `n${id(x)}`).join(", ")})`;
  const fused: string[] = [];
  const seen = new Set<Scope>();
  const visit = (s: Scope) => {
    seen.add(s);
    for (const n of s.nodes) {
      fused.push(`n${id(n)} ${n.op}${sched.written.has(n) ? " (stored)" : ""}`);
      const inner = sched.innerOf.get(n);
      // Sibling reductions share an inner scope: list its nodes once.
      if (inner && !seen.has(inner)) visit(inner);
    }
  };
  visit(k.main);
  const what = k.scatter
    ? `${k.scatter.op} n${id(k.scatter)} over axes [${k.scatter.attrs.axes!.join(",")}], row-major over ${fmt(k.main.shape)}`
    : `loop over ${fmt(k.main.shape)}`;
  return `${what}; fuses ${fused.length ? fused.join(", ") : "nothing"}`;
}
