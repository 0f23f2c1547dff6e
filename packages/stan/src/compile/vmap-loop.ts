import { add, broadcastTo, cast, concat, constant, data as dataLeaf, gather, index, mT, mul, sum, type Node } from "@ppl/tensor";
import { batchGraph } from "@ppl/tensor/internals";
import { toposort } from "@ppl/tensor/ir";
import type { Expr, Index, Stmt } from "../syntax/ast.ts";
import { readIndex } from "./indexing.ts";
import type { KnownValues } from "./known.ts";
import { withRows } from "./scan-loop.ts";
import { isCells, materialize, readsParams, shapeOf, type Val } from "./values.ts";

/**
 * The loop pass's third form: a `for` loop whose iterations are independent but whose body is
 * more than scalars (a local container filled and then read whole, `ps[k] = …; target +=
 * log_sum_exp(ps)`; vector expressions of a row `y[i]`; user functions; an `if` on data) runs as
 * one vmapped trace: the body is traced once for a symbolic iteration, its index a leaf, and the
 * graph of that iteration is batched over all iterations (batchGraph). The body's effects are
 * collected: `~` and `target +=` as one term per iteration, summed; `x[i] = …` into a variable
 * declared outside (a map) as the row of x, and `x[…, i] = …` into a matrix as its column (a map
 * along axis 1: `prediction[t, m]` in a loop over m; `col(x, m)` and `sub_col(x, a, m, n)` read the
 * iteration's column, as `row` and `sub_row` its row); and variables declared outside and assigned
 * without the index (scratch) as their value after the last iteration.
 *
 * Whether the iterations are independent is checked on the trace, not guessed from the syntax:
 * a scratch variable enters each iteration as a placeholder leaf, and so does a map read other than
 * at its own row; an iteration that reads one (state carried from the previous iteration) makes
 * the form give up, having changed nothing, and the loop is left to the scan form or to tracing
 * one iteration at a time. A condition, loop bound or size that follows from data and the index
 * (`if (s[i] > 0)`, `for (k in 1:K[i])`) is evaluated for every iteration; where it differs, the
 * iterations are split by its value and each group traced with it known.
 */
export interface VmapPlan {
  /** Variables declared outside the loop and assigned at [i] only: the loop fills their rows. */
  readonly maps: readonly string[];
  /** Each map's axis the loop index selects: 0 for x[i, …], 1 for a matrix's x[…, i]. */
  readonly axes: ReadonlyMap<string, number>;
  /** Variables declared outside the loop and assigned other than at [i]: their value after the loop is the last iteration's. */
  readonly scratch: readonly string[];
}

/** The fewest iterations a loop has for the vmapped form (shorter ones are traced one by one). */
export const MIN_VMAP_ITERATIONS = 8;
/** The most groups a loop's iterations are split into by conditions on data. */
const MAX_GROUPS = 32;

// Statements the form takes (break, continue, return, reject and fatal_error end an iteration
// early, which a batched trace cannot express).
const TAKEN = new Set<Stmt["kind"]>(["block", "profile", "empty", "decl", "assign", "tilde", "target", "for", "foreach", "while", "if", "print", "call"]);

function walk(s: Stmt, visit: (s: Stmt) => void): void {
  visit(s);
  switch (s.kind) {
    case "block":
    case "profile": return s.body.forEach((b) => walk(b, visit));
    case "for":
    case "foreach":
    case "while": return walk(s.body, visit);
    case "if": walk(s.then, visit); if (s.else) walk(s.else, visit); return;
    default: return;
  }
}

// The expressions a statement holds directly.
function exprsOf(s: Stmt): Expr[] {
  switch (s.kind) {
    case "decl": return [...s.type.sizes, ...s.type.arrayDims, ...(s.init ? [s.init] : [])];
    case "assign": return [s.value, ...s.target.indices.flat().flatMap(indexExprs)];
    case "tilde": return [s.value, ...s.args, ...(s.truncation ? [s.truncation.lower, s.truncation.upper].filter((x): x is Expr => x !== undefined) : [])];
    case "target": return [s.value];
    case "for": return [s.lower, s.upper];
    case "foreach": return [s.collection];
    case "while":
    case "if": return [s.test];
    case "call": return [s.call];
    default: return [];
  }
}

function indexExprs(i: Index): Expr[] {
  return i.kind === "single" ? [i.expr] : [i.lower, i.upper].filter((x): x is Expr => x !== undefined);
}

// The functions an expression calls.
function callsOf(e: Expr): string[] {
  switch (e.kind) {
    case "call": return [e.name, ...e.args.flatMap(callsOf)];
    case "binary": return [...callsOf(e.left), ...callsOf(e.right)];
    case "unary":
    case "transpose": return callsOf(e.operand);
    case "paren": return callsOf(e.inner);
    case "cond": return [e.test, e.then, e.else].flatMap(callsOf);
    case "index": return [...callsOf(e.target), ...e.indices.flatMap(indexExprs).flatMap(callsOf)];
    case "array":
    case "rowvector": return e.elements.flatMap(callsOf);
    default: return [];
  }
}

/** Whether an index is exactly the loop's variable (`x[i]`, `x[i, …]`). */
export function isLoopIndex(i: Index | undefined, loopVar: string): boolean {
  return i?.kind === "single" && i.expr.kind === "var" && i.expr.name === loopVar;
}

/** The vmap plan of a loop, or undefined where its body holds a statement the form does not take, or random draws. */
export function vmapPlan(loop: Stmt & { kind: "for" }): VmapPlan | undefined {
  const locals = new Set<string>([loop.variable]);
  const atIndex = new Map<string, Set<number>>();
  const other = new Set<string>();
  let ok = true;
  walk(loop.body, (s) => {
    if (!TAKEN.has(s.kind)) ok = false;
    if (exprsOf(s).flatMap(callsOf).some((f) => f.endsWith("_rng"))) ok = false;
    if (s.kind === "decl") locals.add(s.name);
    if (s.kind === "for" || s.kind === "foreach") locals.add(s.variable);
    if (s.kind === "assign" && !locals.has(s.target.name)) {
      const axis = mapAxis(s.target.indices[0], loop.variable);
      if (axis === undefined) other.add(s.target.name);
      else atIndex.set(s.target.name, (atIndex.get(s.target.name) ?? new Set()).add(axis));
    }
  });
  if (!ok) return undefined;
  // A variable assigned at the index on two axes, or also elsewhere, is scratch.
  for (const [name, axes] of atIndex) if (axes.size > 1) other.add(name);
  const maps = [...atIndex.keys()].filter((n) => !other.has(n));
  return { maps, axes: new Map(maps.map((n) => [n, [...atIndex.get(n)!][0]!] as const)), scratch: [...other] };
}

/** The axis at which the first bracket of an assignment or read has exactly the loop's variable (0: x[i, …]; 1: x[a, i]), else undefined. */
export function mapAxis(first: readonly Index[] | undefined, loopVar: string): number | undefined {
  if (isLoopIndex(first?.[0], loopVar)) return 0;
  return first?.length === 2 && isLoopIndex(first[1], loopVar) ? 1 : undefined;
}

/** Thrown while a group of iterations is traced: a condition whose value differs between them (one value per iteration). */
export class VmapSplit {
  constructor(readonly values: Float64Array) {}
}

let traces = 0;

// Whether a node reads a leaf.
function dependsOn(outputs: readonly Node[], leaves: ReadonlySet<Node>): boolean {
  return toposort(outputs).some((n) => leaves.has(n));
}

/** One trace of a loop's body for a group of iterations: the index leaf, the placeholders, and the effects collected. */
export class VmapTrace {
  /** The scope the body runs in: the loop variable, and every map and scratch variable (as placeholders). */
  readonly frame = new Map<string, Val>();
  /** The current row of each map variable in this iteration. */
  readonly rows = new Map<string, Val>();
  /** The log density terms of this iteration. */
  readonly terms: Node[] = [];
  /** The leaf standing for the loop index. */
  readonly index: Node;
  readonly placeholders = new Set<Node>();
  private readonly indexValues: Node;

  constructor(readonly plan: VmapPlan, readonly loopVar: string, readonly group: readonly number[], before: ReadonlyMap<string, Val>, private readonly known: KnownValues | undefined) {
    const id = ++traces;
    this.index = dataLeaf(`vmap:${id}:${loopVar}`, []);
    this.indexValues = constant(group, [group.length]);
    this.frame.set(loopVar, this.index);
    const placeholder = (name: string): Node => {
      const v = materialize(before.get(name)!);
      const leaf = dataLeaf(`vmap:${id}:${name}`, v.shape, v.dtype);
      this.placeholders.add(leaf);
      return leaf;
    };
    for (const name of [...plan.maps, ...plan.scratch]) this.frame.set(name, placeholder(name));
    // A map's row (or column) before the iteration assigns it is the one the variable held before the loop.
    for (const name of plan.maps) {
      const at = { kind: "single", at: this.index } as const;
      this.rows.set(name, readIndex(before.get(name)!, plan.axes.get(name) === 1 ? [{ kind: "range", lower: undefined, upper: undefined }, at] : [at]));
    }
  }

  /** The axis of a map variable the loop index selects (0 rows, 1 columns). */
  axisOf(name: string): number {
    return this.plan.axes.get(name) ?? 0;
  }

  /** Whether `name` is a map variable of this loop. */
  isMap(name: string): boolean {
    return this.plan.maps.includes(name);
  }

  /**
   * The value of a scalar that follows from data and the loop index, where it is the same for every
   * iteration of the group; undefined where it is not of data and the index alone. Throws VmapSplit
   * where it differs between the iterations.
   */
  decide(n: Node): number | undefined {
    if (n.rank !== 0 || this.known === undefined || readsParams(n) || !dependsOn([n], new Set([this.index]))) return undefined;
    const [b] = batchGraph([n], new Map([[this.index, this.indexValues]]), this.group.length);
    const values = this.known.values(b!.node);
    if (values === undefined) return undefined;
    if (values.every((v) => v === values[0])) return values[0];
    throw new VmapSplit(values);
  }
}

/** What running the vmapped form needs of the tracer. */
export interface VmapHost {
  lookup(name: string): Val;
  setVar(name: string, v: Val): void;
  factor(term: Node): void;
  /** Runs the loop's body once with `trace` as the current iteration. */
  runBody(trace: VmapTrace): void;
  readonly known: KnownValues | undefined;
}

/** One group's batched results: its log density (summed), its maps' rows and its scratch variables' last values. */
interface GroupResult {
  readonly group: readonly number[];
  readonly term: Node | undefined;
  readonly rows: readonly Node[];
  readonly scratch: readonly Node[];
}

// Traces one group; undefined where the iterations are not independent (or the trace fails), a split where a condition differs.
function traceGroup(host: VmapHost, plan: VmapPlan, loopVar: string, group: readonly number[], before: ReadonlyMap<string, Val>): GroupResult | VmapSplit | undefined {
  const trace = new VmapTrace(plan, loopVar, group, before, host.known);
  try {
    host.runBody(trace);
  } catch (e) {
    return e instanceof VmapSplit ? e : undefined;
  }
  const term = trace.terms.length === 0 ? undefined : trace.terms.reduce((a, b) => add(a, b));
  const rows = plan.maps.map((name) => materialize(trace.rows.get(name)!));
  const scratch = plan.scratch.map((name) => materialize(trace.frame.get(name)!));
  const outputs = [...(term ? [term] : []), ...rows, ...scratch];
  if (dependsOn(outputs, trace.placeholders)) return undefined;
  const n = group.length;
  let batched: ReturnType<typeof batchGraph>;
  try {
    batched = batchGraph(outputs, new Map([[trace.index, constant(group, [n])]]), n);
  } catch {
    return undefined; // an op without a batching rule: the loop is left to the other forms
  }
  const all = (k: number): Node => (batched[k]!.batched ? batched[k]!.node : broadcastTo(batched[k]!.node, [n, ...outputs[k]!.shape]));
  const t0 = term ? 1 : 0;
  return {
    group,
    term: term ? (batched[0]!.batched ? sum(batched[0]!.node) : mul(batched[0]!.node, n)) : undefined,
    rows: rows.map((_, k) => all(t0 + k)),
    scratch: scratch.map((_, k) => index(all(t0 + rows.length + k), n - 1, 0)),
  };
}

// A map's value after the loop: its rows before, with each group's rows put at the group's positions.
function assembled(before: Val, results: readonly GroupResult[], k: number, lo: number, hi: number): Node {
  const first = results[0]!;
  if (results.length === 1) return withRows(before, lo, hi, first.rows[k]!);
  const dtype = first.rows[k]!.dtype;
  const old = materialize(before);
  const length = shapeOf(before)[0]!;
  const order = Array.from({ length }, (_, r) => r);
  let at = length;
  for (const r of results) for (const i of r.group) order[i - 1] = at++;
  const parts = [old, ...results.map((r) => r.rows[k]!)].map((p) => (p.dtype === dtype ? p : cast(p, dtype)));
  return gather(concat(parts), constant(order, [length], "i32"), 0);
}

/**
 * Runs a loop over lo..hi in the vmapped form, leaving every variable it assigns as the unrolled
 * loop would and adding its log density terms. Returns false (having changed nothing) where the
 * iterations are not independent, or the body cannot be traced so.
 */
export function runVmap(host: VmapHost, plan: VmapPlan, loopVar: string, lo: number, hi: number): boolean {
  const before = new Map<string, Val>();
  for (const name of [...plan.maps, ...plan.scratch]) before.set(name, host.lookup(name));
  const outside = (name: string): boolean => {
    const shape = shapeOf(before.get(name)!);
    const axis = plan.axes.get(name) ?? 0;
    // A map along columns is a matrix (rank 2), not an array of cells.
    if (axis === 1 && (shape.length !== 2 || isCells(before.get(name)!))) return true;
    return shape.length === 0 || lo < 1 || hi > shape[axis]!;
  };
  if (plan.maps.some(outside)) return false;
  const results: GroupResult[] = [];
  const pending: (readonly number[])[] = [Array.from({ length: hi - lo + 1 }, (_, k) => lo + k)];
  let groups = 1;
  while (pending.length > 0) {
    const group = pending.pop()!;
    const r = traceGroup(host, plan, loopVar, group, before);
    if (r === undefined) return false;
    if (r instanceof VmapSplit) {
      const byValue = new Map<number, number[]>();
      group.forEach((i, k) => byValue.set(r.values[k]!, [...(byValue.get(r.values[k]!) ?? []), i]));
      groups += byValue.size - 1;
      if (groups > MAX_GROUPS) return false;
      pending.push(...byValue.values());
      continue;
    }
    results.push(r);
  }
  results.sort((a, b) => a.group[0]! - b.group[0]!);
  for (const r of results) if (r.term) host.factor(r.term);
  plan.maps.forEach((name, k) => {
    // A map along columns is assembled as the rows of its transpose.
    if (plan.axes.get(name) === 1) host.setVar(name, mT(assembled(mT(materialize(before.get(name)!)), results, k, lo, hi)));
    else host.setVar(name, assembled(before.get(name)!, results, k, lo, hi));
  });
  // Groups keep the iterations in order, so hi ends its group, whose last row is the scratch's value.
  const last = results.find((r) => r.group.at(-1) === hi)!;
  plan.scratch.forEach((name, k) => host.setVar(name, last.scratch[k]!));
  return true;
}

