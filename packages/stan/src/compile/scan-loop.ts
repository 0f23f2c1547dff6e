import { cast, concat, constant, reshape, scan, stack, type Node, type ScanResult } from "@ppl/tensor";
import { batchGraph } from "@ppl/tensor/internals";
import { substitute, toposort } from "@ppl/tensor/ir";
import type { Expr, Index, LValue, Stmt } from "../syntax/ast.ts";
import { readIndex } from "./indexing.ts";
import { filled, isCells, materialize, shapeOf, toCells, type Cells, type Val } from "./values.ts";

/**
 * The loop pass's second form: a `for` loop whose iterations carry state (`sigma[t] = f(sigma[t - 1])`,
 * an HMM's forward variable `gamma[t, k]` from `gamma[t - 1]`) runs as one `scan` whose body is
 * the loop's body traced once, instead of one traced copy of the body per iteration.
 *
 * The loop index `t` may appear only as the first index of a variable, as `x[t]`, `x[t + c]` or
 * `x[t - c]` with `c` an int literal. Then the body is traced with `t` bound to one number, the
 * position of the current iteration in a window of rows that each such variable is bound to:
 * - a variable the loop assigns at `[t]` (all its assignments, and read only at `[t - c]`, c ≥ 0)
 *   is carried: its last `c` rows enter each step as the scan's carry, its row `t` (as it was before
 *   the loop) as the step's input, and the row the step leaves at `t` is the step's output;
 * - a variable the loop only reads at `[t + c]` gets its row `t + c` as the step's input;
 * - a variable declared outside the loop and assigned in it without `t` (a scratch array, a running
 *   sum) is carried whole.
 * Rows of a window that the body never reads hold NaN. The body may hold assignments, declarations
 * and inner loops; a loop with `~`, `target +=`, `if`, `break`, random draws or `_lp` calls is left to
 * the other forms (vectorized, or traced one iteration at a time).
 */
export interface ScanPlan {
  /** Variables assigned at [t], with how many earlier rows each step reads (max c of x[t - c]). */
  readonly windowed: ReadonlyMap<string, number>;
  /** Variables read at [t + c], with their offsets c. */
  readonly inputs: ReadonlyMap<string, readonly number[]>;
  /** Variables declared outside and assigned in the loop without the index: carried whole. */
  readonly whole: readonly string[];
  /** The current iteration's position in every window (1-based): one more than the longest look back. */
  readonly position: number;
  /** The window's length: position plus the longest look ahead. */
  readonly length: number;
}

interface Uses {
  readonly reads: Map<string, Set<number>>;
  readonly assignedAtT: Set<string>;
  readonly assignedWhole: Set<string>;
  /** Variables mentioned other than through x[t + c] (read whole, or at an index without t). */
  readonly other: Set<string>;
  readonly locals: Set<string>;
  ok: boolean;
}

// t, t + c or t - c (c an int literal): c; otherwise undefined.
function offsetOf(e: Expr, t: string): number | undefined {
  if (e.kind === "paren") return offsetOf(e.inner, t);
  if (e.kind === "var") return e.name === t ? 0 : undefined;
  if (e.kind === "binary" && (e.op === "+" || e.op === "-") && e.left.kind === "var" && e.left.name === t && e.right.kind === "int") {
    return e.op === "+" ? e.right.value : -e.right.value;
  }
  return undefined;
}

function visitIndex(i: Index, u: Uses, t: string): void {
  if (i.kind === "single") visitExpr(i.expr, u, t);
  else for (const x of [i.lower, i.upper]) if (x) visitExpr(x, u, t);
}

function visitExpr(e: Expr, u: Uses, t: string): void {
  switch (e.kind) {
    case "var":
      if (e.name === t) u.ok = false;
      else u.other.add(e.name);
      return;
    case "index": {
      const first = e.indices[0];
      const c = e.target.kind === "var" && first?.kind === "single" ? offsetOf(first.expr, t) : undefined;
      if (c !== undefined && e.target.kind === "var") {
        const set = u.reads.get(e.target.name) ?? new Set<number>();
        set.add(c);
        u.reads.set(e.target.name, set);
        e.indices.slice(1).forEach((i) => visitIndex(i, u, t));
        return;
      }
      visitExpr(e.target, u, t);
      e.indices.forEach((i) => visitIndex(i, u, t));
      return;
    }
    case "call":
      if (/_(rng|lp)$/.test(e.name)) u.ok = false;
      e.args.forEach((a) => visitExpr(a, u, t));
      return;
    case "binary": return [e.left, e.right].forEach((x) => visitExpr(x, u, t));
    case "unary":
    case "transpose": return visitExpr(e.operand, u, t);
    case "paren": return visitExpr(e.inner, u, t);
    case "cond": return [e.test, e.then, e.else].forEach((x) => visitExpr(x, u, t));
    case "array":
    case "rowvector": return e.elements.forEach((x) => visitExpr(x, u, t));
    default: return;
  }
}

function visitTarget(l: LValue, u: Uses, t: string): void {
  const [first, ...rest] = l.indices;
  const head = first?.[0];
  const c = head?.kind === "single" ? offsetOf(head.expr, t) : undefined;
  if (c !== undefined) {
    if (c !== 0) u.ok = false;
    u.assignedAtT.add(l.name);
    first!.slice(1).forEach((i) => visitIndex(i, u, t));
  } else {
    if (!u.locals.has(l.name)) u.assignedWhole.add(l.name);
    first?.forEach((i) => visitIndex(i, u, t));
  }
  rest.flat().forEach((i) => visitIndex(i, u, t));
}

function visitStmt(s: Stmt, u: Uses, t: string): void {
  switch (s.kind) {
    case "block": return s.body.forEach((b) => visitStmt(b, u, t));
    case "empty":
    case "print": return;
    case "decl":
      u.locals.add(s.name);
      [...s.type.sizes, ...s.type.arrayDims].forEach((x) => visitExpr(x, u, t));
      if (s.init) visitExpr(s.init, u, t);
      return;
    case "assign":
      visitTarget(s.target, u, t);
      // A compound assignment reads its target too.
      if (s.op !== "=" && s.target.indices.length === 0) u.other.add(s.target.name);
      return visitExpr(s.value, u, t);
    case "for":
      u.locals.add(s.variable);
      visitExpr(s.lower, u, t);
      visitExpr(s.upper, u, t);
      return visitStmt(s.body, u, t);
    default:
      u.ok = false;
  }
}

/** The scan plan of a loop, or undefined where the loop does not take this form (see ScanPlan). */
export function scanPlan(loop: Stmt & { kind: "for" }): ScanPlan | undefined {
  const t = loop.variable;
  const u: Uses = { reads: new Map(), assignedAtT: new Set(), assignedWhole: new Set(), other: new Set(), locals: new Set(), ok: true };
  visitStmt(loop.body, u, t);
  if (!u.ok) return undefined;
  const windowed = new Map<string, number>();
  for (const name of u.assignedAtT) {
    if (u.locals.has(name) || u.assignedWhole.has(name) || u.other.has(name)) return undefined;
    const offsets = [...(u.reads.get(name) ?? [])];
    if (offsets.some((c) => c > 0)) return undefined;
    windowed.set(name, Math.max(0, ...offsets.map((c) => -c)));
  }
  const whole = [...u.assignedWhole].filter((n) => !u.locals.has(n));
  if (windowed.size === 0 && whole.length === 0) return undefined;
  if (whole.some((n) => u.reads.has(n))) return undefined;
  const inputs = new Map<string, number[]>();
  for (const [name, offsets] of u.reads) if (!windowed.has(name) && !u.locals.has(name)) inputs.set(name, [...offsets]);
  if ([...u.reads.keys()].some((n) => u.locals.has(n))) return undefined;
  const back = Math.max(0, ...windowed.values(), ...[...inputs.values()].flat().map((c) => -c));
  const ahead = Math.max(0, ...[...inputs.values()].flat());
  return { windowed, inputs, whole, position: back + 1, length: back + 1 + ahead };
}

/** What running a scan plan needs of the tracer. */
export interface ScanHost {
  lookup(name: string): Val;
  setVar(name: string, v: Val): void;
  /** Runs the loop's body once in a new scope holding `bindings`; returns that scope's values after it. */
  runBody(bindings: ReadonlyMap<string, Val>): ReadonlyMap<string, Val>;
}

const isFloat = (n: Node): boolean => n.dtype === "f64" || n.dtype === "f32";
const f64 = (n: Node): Node => (n.dtype === "f64" ? n : cast(n, "f64"));

// Rows lo..hi (1-based) of a value along its first axis, as one node.
// Of a value held as cells, only the cells in the range are stacked (a container of N rows declared
// and filled in the loop would otherwise be stacked whole at every evaluation), and a run of
// unassigned cells (one number each, Stan's NaN) is one constant.
function rows(v: Val, lo: number, hi: number): Node {
  if (!isCells(v)) return materialize(readIndex(v, [{ kind: "range", lower: lo, upper: hi }]));
  const cells = v.cells.slice(lo - 1, hi);
  const first = cells[0];
  if (typeof first === "number" && cells.every((c) => Object.is(c, first))) return constant(first, [cells.length, ...v.cellShape]);
  return stack(cells.map((c) => (typeof c === "number" ? constant(c, v.cellShape) : materialize(c))));
}

/** v with rows lo..hi (1-based) replaced by `block`: the rows before and after it, and the block, concatenated. */
export function withRows(v: Val, lo: number, hi: number, block: Node): Node {
  const length = shapeOf(v)[0]!;
  const parts = [...(lo > 1 ? [rows(v, 1, lo - 1)] : []), block, ...(hi < length ? [rows(v, hi + 1, length)] : [])];
  return parts.length === 1 ? block : concat(parts.map((p) => (p.dtype === block.dtype ? p : cast(p, block.dtype))));
}

/**
 * Runs a loop by its scan plan over iterations lo..hi, leaving every variable it assigns as the
 * unrolled loop would. Returns false (having changed nothing) where the values do not fit the plan:
 * an int variable carried, or rows outside a variable's range.
 */
export function runScan(host: ScanHost, plan: ScanPlan, loopVar: string, lo: number, hi: number): boolean {
  const n = hi - lo + 1;
  const init: Node[] = [];
  const xs: Node[] = [];
  const before = new Map<string, Val>();
  for (const name of [...plan.windowed.keys(), ...plan.inputs.keys(), ...plan.whole]) before.set(name, host.lookup(name));
  const length = (name: string): number => shapeOf(before.get(name)!)[0] ?? 0;
  for (const [name, back] of plan.windowed) {
    if (lo - back < 1 || hi > length(name)) return false;
    const current = rows(before.get(name)!, lo, hi);
    if (!isFloat(current)) return false;
    if (back > 0) init.push(f64(rows(before.get(name)!, lo - back, lo - 1)));
    xs.push(f64(current));
  }
  for (const [name, offsets] of plan.inputs) {
    for (const c of offsets) {
      if (lo + c < 1 || hi + c > length(name)) return false;
      xs.push(rows(before.get(name)!, lo + c, hi + c));
    }
  }
  for (const name of plan.whole) {
    const v = materialize(before.get(name)!);
    if (!isFloat(v)) return false;
    init.push(f64(v));
  }
  const rowShapes = new Map([...before].map(([name, v]) => [name, shapeOf(v).slice(1)] as const));
  const step = (carry: Node[], x: Node[]): { carry: Node[]; ys: Node[] } => {
    let nc = 0, nx = 0;
    const bindings = new Map<string, Val>([[loopVar, plan.position]]);
    const window = (name: string): Val[] => Array.from({ length: plan.length }, () => filled(rowShapes.get(name)!, NaN));
    for (const [name, back] of plan.windowed) {
      const w = window(name);
      const c = back > 0 ? carry[nc++]! : undefined;
      for (let k = 0; k < back; k++) w[plan.position - back - 1 + k] = readIndex(c!, [{ kind: "single", at: k + 1 }]);
      w[plan.position - 1] = x[nx++]!;
      bindings.set(name, { cells: w, cellShape: rowShapes.get(name)! });
    }
    for (const [name, offsets] of plan.inputs) {
      const w = window(name);
      for (const c of offsets) w[plan.position - 1 + c] = x[nx++]!;
      bindings.set(name, { cells: w, cellShape: rowShapes.get(name)! });
    }
    for (const name of plan.whole) bindings.set(name, carry[nc++]!);
    const after = host.runBody(bindings);
    const nextCarry: Node[] = [];
    const ys: Node[] = [];
    for (const [name, back] of plan.windowed) {
      const w: Cells = toCells(after.get(name)!);
      const row = (k: number): Node => f64(materialize(w.cells[k]!));
      if (back > 0) nextCarry.push(stack(Array.from({ length: back }, (_, k) => reshape(row(plan.position - back + k), rowShapes.get(name)!))));
      ys.push(reshape(row(plan.position - 1), rowShapes.get(name)!));
    }
    plan.whole.forEach((name, k) => nextCarry.push(reshape(f64(materialize(after.get(name)!)), init[init.length - plan.whole.length + k]!.shape)));
    return { carry: nextCarry, ys };
  };
  const result = scanHoisted(step, init, xs, n);
  let nc = 0;
  [...plan.windowed].forEach(([name, back], k) => {
    if (back > 0) nc++;
    host.setVar(name, withRows(before.get(name)!, lo, hi, result.ys[k]!));
  });
  plan.whole.forEach((name) => host.setVar(name, result.carry[nc++]!));
  return true;
}

type Step = (carry: Node[], x: Node[]) => { carry: Node[]; ys: Node[] };

/** Thrown out of a first trace of the step: what of it depends on the step's inputs alone. */
class Hoistable {
  constructor(readonly frontier: readonly Node[], readonly xArgs: readonly Node[]) {}
}

// The nodes of a step that depend on its inputs (xs) and on nothing carried, where the rest of the
// step reads them: each is computed for every step at once before the scan (an HMM's emission
// densities normal_lpdf(y[t] | mu[k], 1)), and the step reads its row as one more input.
function inputOnlyFrontier(outputs: readonly Node[], xArgs: readonly Node[]): Node[] {
  const xs = new Set(xArgs);
  const inputOnly = new Set<Node>();
  const other = new Set<Node>();
  for (const node of toposort(outputs)) {
    if (xs.has(node)) inputOnly.add(node);
    else if (node.op === "arg" || node.inputs.some((i) => other.has(i))) other.add(node);
    else if (node.inputs.some((i) => inputOnly.has(i))) inputOnly.add(node);
  }
  const frontier = new Set<Node>();
  for (const node of toposort(outputs)) {
    if (!other.has(node)) continue;
    for (const i of node.inputs) if (inputOnly.has(i) && !xs.has(i)) frontier.add(i);
  }
  for (const o of outputs) if (inputOnly.has(o) && !xs.has(o)) frontier.add(o);
  return [...frontier];
}

/**
 * scan(step) with what the step computes from its inputs alone taken out of it: a first trace
 * finds those nodes, batchGraph computes them over all steps, and a second trace reads them as
 * inputs (the IR is hash-consed, so the second trace makes the same nodes, replaced by substitute).
 */
function scanHoisted(step: Step, init: readonly Node[], xs: readonly Node[], n: number): ScanResult {
  const run = (extra: readonly Node[], frontier: readonly Node[], probe: boolean): ScanResult =>
    scan((carry, xAll) => {
      const x = xAll.slice(0, xs.length);
      const out = step(carry, x);
      const outputs = [...out.carry, ...out.ys];
      if (probe) {
        const f = inputOnlyFrontier(outputs, x);
        if (f.length > 0) throw new Hoistable(f, x);
      }
      if (frontier.length === 0) return out;
      const replaced = substitute(outputs, new Map(frontier.map((f, k) => [f, xAll[xs.length + k]!] as const)));
      return { carry: replaced.slice(0, out.carry.length), ys: replaced.slice(out.carry.length) };
    }, init, [...xs, ...extra], [], { length: n });
  try {
    return run([], [], true);
  } catch (e) {
    if (!(e instanceof Hoistable)) throw e;
    let hoisted: Node[] | undefined;
    try {
      hoisted = batchGraph(e.frontier, new Map(e.xArgs.map((a, k) => [a, xs[k]!] as const)), n).map((v) => v.node);
    } catch {
      hoisted = undefined; // an op without a batching rule: the step keeps computing it
    }
    return hoisted ? run(hoisted, e.frontier, false) : run([], [], false);
  }
}
